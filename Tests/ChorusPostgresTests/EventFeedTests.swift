import ChorusPostgres
import ChorusStore
import ChorusLocking
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// PostgreSQL's event feed: other nodes' rows with their audience and session controls,
/// the doorbell, and a connection that comes back by itself.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct EventFeedTests {
    /// Node a writes an event and a session control; node b's feed reads both as a wrote
    /// them, a's own feed reads neither back (unless asked for its own rows), and SYNC
    /// never returns the control.
    @Test func otherNodesRowsCarryTheirAudienceAndControls() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let queue = try PostgresQueue(conninfo: conninfo, node: "a")
        defer { queue.close() }
        let a = try PostgresEventFeed(conninfo: conninfo, node: "a")
        let b = try PostgresEventFeed(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        let start = try b.newestEventID()
        let user = try queue.sync { try $0.createAccount(name: "ann", passwordHash: "x", created: "t").id }
        let control = SessionControl(closeUsers: [user], reason: "disconnected by a server admin", closeToken: 7)
        let (event, closing) = try queue.sync { db in
            (try db.appendEvent(room: nil, user: user, name: "dm", by: "bob", at: "2026-01-01T00:00:00Z",
                                payload: #"{"text":"hi"}"#, text: "bob: hi", audience: [user, 3, 2]),
             try db.appendSessionControl(control))
        }
        #expect(closing == event + 1)
        let newest = try b.newestEventID()
        #expect(newest == event + 1)
        let rows = try b.records(after: start, upTo: newest, limit: 10)
        let expected = StoredEvent(id: event, room: nil, name: "dm", by: "bob", at: "2026-01-01T00:00:00Z",
                                   payload: #"{"text":"hi"}"#, text: "bob: hi")
        #expect(rows == [FeedRecord(id: event, node: "a", body: .event(expected, audience: [user, 3, 2])),
                         FeedRecord(id: event + 1, node: "a", body: .control(control))])
        #expect(try a.records(after: start, upTo: newest, limit: 10) == [])
        #expect(try a.records(after: start, upTo: newest, limit: 10, includingOwn: true) == rows)
        #expect(try b.records(after: start, upTo: event, limit: 10).map(\.id) == [event], "bounded by upTo")
        let synced = try queue.sync { try $0.events(forUser: user, after: 0, limit: 100) }.map(\.id)
        #expect(synced == [event], "SYNC never returns a control")
        #expect(try queue.sync { try $0.appendSessionControl(SessionControl(closeUsers: [], reason: "", closeToken: nil)) } == nil)
    }

    /// A doorbell rung by another node ends a waiting feed's wait; its own does not, and
    /// `interrupt` ends it from another thread.
    @Test func aDoorbellWakesAWaiter() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        try PostgresQueue(conninfo: conninfo, node: "a").close()
        let a = try PostgresEventFeed(conninfo: conninfo, node: "a")
        let b = try PostgresEventFeed(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        try b.ringDoorbell()
        #expect(b.waitForDoorbell(timeout: 0.3) == .timedOut, "a node's own doorbell does not wake it")

        let woke = Locked<FeedWake?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            woke.withLock { $0 = b.waitForDoorbell(timeout: 30) }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.1)
        try a.ringDoorbell()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(woke.withLock { $0 } == .doorbell)

        Thread {
            woke.withLock { $0 = b.waitForDoorbell(timeout: 30) }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.1)
        b.interrupt()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(woke.withLock { $0 } == .interrupted)
    }

    /// The feed's session ended by the server (`pg_terminate_backend`): the next calls
    /// connect again and LISTEN again, so reads and doorbells work as before.
    @Test func theFeedReconnectsAfterItsSessionIsEnded() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let queue = try PostgresQueue(conninfo: conninfo, node: "a")
        defer { queue.close() }
        let a = try PostgresEventFeed(conninfo: conninfo, node: "a")
        let b = try PostgresEventFeed(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        let before = b.backendPID
        let admin = try PostgresConnection(conninfo)
        #expect(try admin.query("SELECT pg_terminate_backend($1::integer)", [.int(Int64(before))]).row(0).bool(0) == true)
        // The wait finds the connection gone and waits the time out; the next call reconnects.
        #expect(b.waitForDoorbell(timeout: 0.3) != .doorbell)
        var newest: Int64?
        for _ in 0..<5 where newest == nil {
            newest = try? b.newestEventID()
        }
        #expect(newest == 0)
        #expect(b.backendPID != before, "a new session")
        let event = try queue.sync { try $0.appendEvent(room: 1, user: nil, name: "message", by: "ann", at: "t",
                                                         payload: "{}", text: "hi", audience: [1]) }
        try a.ringDoorbell()
        #expect(b.waitForDoorbell(timeout: 20) == .doorbell, "LISTEN again after reconnecting")
        #expect(try b.records(after: 0, upTo: try b.newestEventID(), limit: 10).map(\.id) == [event])
    }
}

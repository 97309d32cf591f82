import ChorusLocking
import ChorusPostgres
import ChorusStore
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// Unread counts on two nodes whose batches talk in one room at once. Their changes to
/// the counts wait for each batch's end (under the event counter's lock), so no batch
/// waits for another's rows mid-way: two batches that would otherwise each hold a row the
/// other wants (messages by different people, and READs, interleaved) commit without a
/// deadlock or a rerun, and every count comes out exact.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct UnreadBatchTests {
    @Test func twoBatchesTalkingInOneRoomNeverWaitForEachOther() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try PostgresQueue(conninfo: conninfo, node: "a")
        let b = try PostgresQueue(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        let (users, room) = try a.sync { db -> ([Int64], Int64) in
            let users = try ["u1", "u2", "u3"].map { try db.createAccount(name: $0, passwordHash: "h", created: "t").id }
            let room = try db.createRoom(name: "Flat", ownerID: users[0], created: "t")
            for user in users.dropFirst() { try db.addMember(room: room, user: user, role: .member, joined: "t") }
            return (users, room)
        }
        // Holds each queue so its jobs share its next batch.
        let release = DispatchSemaphore(value: 0)
        for queue in [a, b] {
            let started = DispatchSemaphore(value: 0)
            queue.submit({ _ in
                started.signal()
                // Bounded, so the queue still closes if the test gave up before releasing it.
                _ = release.wait(timeout: .now() + 120)
            }, completion: { _ in })
            try #require(started.wait(timeout: .now() + 60) == .success, "the holding job did not start")
        }
        let met = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let read = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        func submit(_ queue: PostgresQueue, _ what: String, _ job: @escaping @Sendable (any Store) throws -> Void) {
            done.enter()
            queue.submit({ db in try job(db) }, completion: { result in
                if case .failure(let error) = result { failures.withLock { $0.append("\(what): \(error)") } }
                done.leave()
            })
        }
        @Sendable func say(_ db: any Store, _ name: String) throws {
            _ = try db.stageEvent(room: room, user: nil, name: "message", by: name, at: "t", payload: "{}", text: "", audience: users)
        }
        // Each batch says something, waits until the other has said something too (so both
        // are mid-way at once), then says more and reads.
        for (index, queue, first, second, reader) in [(0, a, "u1", "u3", users[1]), (1, b, "u3", "u2", users[0])] {
            submit(queue, "\(index) first") { try say($0, first) }
            // The wait is long: on a loaded machine the other batch may start seconds later,
            // and a batch that went on alone would commit before the other reads.
            submit(queue, "\(index) meets") { _ in
                met[index].signal()
                _ = met[1 - index].wait(timeout: .now() + 20)
            }
            submit(queue, "\(index) second") { try say($0, second) }
            submit(queue, "\(index) reads") { db in _ = try db.setReadMarker(user: reader, room: room, event: try db.lastEventID()) }
            // Neither commits before the other has read: a batch that committed first had its
            // lines counted as read by the other's READ ([3, 2, 2], once in a loaded full run).
            submit(queue, "\(index) waits for the other's read") { _ in
                read[index].signal()
                _ = read[1 - index].wait(timeout: .now() + 20)
            }
        }
        release.signal()
        release.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failures.withLock { $0 } == [])
        #expect(a.rerunCount + b.rerunCount == 0, "no batch waited for the other's rows and deadlocked")
        // u1 said one, u3 two, u2 one; the READs marked only what was committed before, none of them.
        let counts = try a.sync { db in try users.map { try db.room(id: room, forUser: $0, now: Date())?.unread ?? -1 } }
        #expect(counts == [3, 3, 2], "\(counts)")
    }
}

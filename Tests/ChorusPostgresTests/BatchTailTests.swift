import ChorusCore
import ChorusLocking
import Dispatch
import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// What a batch keeps in memory until its end: staged events stored as given with their
/// final ids (and what named them by a provisional id), and a task update's read-back.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct BatchTailTests {
    struct Stored: HoldsProvisionalEventIDs {
        var provisional: [Int64]
        var ids: [Int64]
        func resolvingEventIDs(_ final: FinalEventIDs) -> Stored { Stored(provisional: provisional, ids: ids.map(final.final)) }
    }

    @Test func stagedEventsAreStoredAsGivenWithTheirFinalIDs() throws {
        let queue = try PostgresQueue(conninfo: try ThrowawayPostgres.sharedCluster().makeDatabase(), node: "a")
        defer { queue.close() }
        let (alice, bob, room) = try queue.sync { db in
            let alice = try db.createAccount(name: "alice", passwordHash: "x", created: "t").id
            let bob = try db.createAccount(name: "bob", passwordHash: "x", created: "t").id
            return (alice, bob, try db.createRoom(name: "Flat", ownerID: alice, created: "t"))
        }
        _ = try queue.sync { db in try db.appendEvent(room: room, user: nil, name: "room.created", by: "alice", at: "t",
                                                      payload: "{}", text: "", audience: [alice]) }
        let odd = #"say "hi" \ back\slash, {braces}, NULL, 🧹 家事"#
        let stored = try queue.syncPostgres { db in
            let message = try db.stageEvent(room: room, user: nil, name: "message", by: odd, at: "2026-01-01T00:00:00Z",
                                            payload: #"{"text":"\"q\""}"#, text: odd, audience: [alice, bob])
            let dm = try db.stageEvent(room: nil, user: bob, name: "dm", by: nil, at: "t", payload: "{}", text: "", audience: [bob])
            try db.setEventPeer(event: dm, peer: alice)
            try db.addMember(room: room, user: bob, role: .member, joined: "t")
            let joined = try db.stageEvent(room: room, user: nil, name: "member.added", by: "bob", at: "t", payload: "{}",
                                           text: "", audience: [alice, bob])
            try db.openMembership(room: room, user: bob, fromEvent: joined)
            return Stored(provisional: [message, dm, joined], ids: [message, dm, joined])
        }
        #expect(stored.provisional.allSatisfy(FinalEventIDs.isProvisional))
        #expect(stored.ids == [2, 3, 4])
        let rows = try queue.syncPostgres { db in
            try db.connection.query("SELECT id, room, user_id, peer, by, text, payload, audience::text FROM events WHERE id > 1 ORDER BY id")
                .rows.map { [try $0.int64(0).map(String.init), try $0.int64(1).map(String.init), try $0.int64(2).map(String.init),
                             try $0.int64(3).map(String.init), $0.string(4), $0.string(5), $0.string(6), $0.string(7)] }
        }
        #expect(rows == [["2", "\(room)", nil, nil, odd, odd, #"{"text":"\"q\""}"#, "{\(alice),\(bob)}"],
                         ["3", nil, "\(bob)", "\(alice)", nil, "", "{}", "{\(bob)}"],
                         ["4", "\(room)", nil, nil, "bob", "", "{}", "{\(alice),\(bob)}"]])
        let span = try queue.syncPostgres { db in
            try db.connection.query("SELECT first_event FROM memberships WHERE user_id = $1", [.int(bob)]).rows.map { try $0.int64(0) }
        }
        #expect(span == [4], "the span opened with a provisional id starts at the event's final id")
        let page = try queue.sync { db in try db.events(forUser: bob, after: 0, limit: 10).map(\.id) }
        #expect(page == [3, 4])
    }

    /// A notice held for its audience in the job that stages it (the shared notice ledger)
    /// is held under the event's final id, which is what a login takes and a live delivery
    /// forgets: under the provisional id nobody would ever find it.
    @Test func aNoticeHeldWhileStagedIsHeldUnderItsFinalID() throws {
        let queue = try PostgresQueue(conninfo: try ThrowawayPostgres.sharedCluster().makeDatabase(), node: "a")
        defer { queue.close() }
        let (alice, bob) = try queue.sync { db in
            (try db.createAccount(name: "alice", passwordHash: "x", created: "t").id,
             try db.createAccount(name: "bob", passwordHash: "x", created: "t").id)
        }
        _ = try queue.sync { db in try db.appendEvent(room: nil, user: alice, name: "note", by: nil, at: "t",
                                                      payload: "{}", text: "", audience: [alice]) }
        let provisional = try queue.sync { db in
            let id = try db.stageEvent(room: nil, user: bob, name: "task.overdue", by: nil, at: "t", payload: "{}",
                                       text: "", audience: [alice, bob])
            try db.addPendingNotices(users: [alice, bob], event: id)
            try db.addPendingNotice(user: alice, event: id)
            return id
        }
        #expect(FinalEventIDs.isProvisional(provisional))
        let held = try queue.syncPostgres { db in
            try db.connection.query("SELECT user_id, event FROM pending_notices ORDER BY user_id").rows
                .map { [try $0.int64(0), try $0.int64(1)] }
        }
        #expect(held == [[alice, 2], [bob, 2]])
        let taken = try queue.sync { db in try db.takePendingNotices(user: bob, upTo: 2).map(\.id) }
        #expect(taken == [2])
    }

    /// A job that stores events at once (`appendEvent`, which also stores the earlier
    /// jobs' staged ones) and then fails is rolled back to its savepoint: the earlier
    /// job's event is stored again at the batch's end, and the ids stay gapless.
    @Test func aJobRolledBackAfterStoringLeavesEarlierEventsToTheTail() throws {
        struct Refused: Error {}
        let queue = try PostgresQueue(conninfo: try ThrowawayPostgres.sharedCluster().makeDatabase(), node: "a")
        defer { queue.close() }
        let results = Locked<[String: Result<Stored, any Error>]>([:])
        let done = DispatchGroup()
        func submit(_ name: String, _ job: @escaping @Sendable (any Store) throws -> Stored) {
            done.enter()
            queue.submit(job, deferWake: true) { result in
                results.withLock { $0[name] = result }
                done.leave()
            }
        }
        submit("first") { db in
            let id = try db.stageEvent(room: 1, user: nil, name: "message", by: nil, at: "t", payload: "{}", text: "first", audience: [])
            return Stored(provisional: [id], ids: [id])
        }
        submit("failing") { db in
            _ = try db.appendEvent(room: 1, user: nil, name: "message", by: nil, at: "t", payload: "{}", text: "failing", audience: [])
            throw Refused()
        }
        submit("third") { db in
            let id = try db.stageEvent(room: 1, user: nil, name: "message", by: nil, at: "t", payload: "{}", text: "third", audience: [])
            return Stored(provisional: [id], ids: [id])
        }
        queue.wakeForQueuedJobs()
        try #require(done.wait(timeout: .now() + 60) == .success, "the three jobs did not finish")
        let got = results.withLock { $0 }
        #expect(try got["first"]?.get().ids == [1])
        #expect(try got["third"]?.get().ids == [2])
        #expect((try? got["failing"]?.get()) == nil)
        let rows = try queue.syncPostgres { db in
            try db.connection.query("SELECT id, text FROM events ORDER BY id").rows.map { "\(try $0.int64(0) ?? 0) \($0.string(1) ?? "")" }
        }
        #expect(rows == ["1 first", "2 third"])
    }

    /// A batch reads a room's members and a member's access once, under the room's lock;
    /// its own changes are seen at once, and a job rolled back to its savepoint leaves
    /// nothing of what it read behind for the next job.
    @Test func readsUnderTheRoomsLockFollowTheBatchsOwnChanges() throws {
        let queue = try PostgresQueue(conninfo: try ThrowawayPostgres.sharedCluster().makeDatabase(), node: "a")
        defer { queue.close() }
        let (alice, bob, carol, room) = try queue.sync { db in
            let alice = try db.createAccount(name: "alice", passwordHash: "x", created: "t").id
            let bob = try db.createAccount(name: "bob", passwordHash: "x", created: "t").id
            let carol = try db.createAccount(name: "carol", passwordHash: "x", created: "t").id
            return (alice, bob, carol, try db.createRoom(name: "Flat", ownerID: alice, created: "t"))
        }
        try queue.sync { db in
            #expect(try db.memberIDs(ofRoom: room) == [alice])
            #expect(try db.roomAccess(id: room, forUser: alice)?.name == "Flat")
            #expect(try db.roomAccess(id: room, forUser: alice)?.name == "Flat")
            try db.renameRoom(room, to: "Home")
            #expect(try db.roomAccess(id: room, forUser: alice)?.name == "Home")
            try db.addMember(room: room, user: bob, role: .member, joined: "t")
            #expect(try db.memberIDs(ofRoom: room) == [alice, bob])
            #expect(try db.roomAccess(id: room, forUser: bob)?.role == .member)
            try db.setRole(room: room, user: bob, role: .admin)
            #expect(try db.roomAccess(id: room, forUser: bob)?.role == .admin)
            try db.removeMember(room: room, user: bob)
            #expect(try db.roomAccess(id: room, forUser: bob) == nil)
            #expect(try db.memberIDs(ofRoom: room) == [alice])
        }
        struct Refused: Error {}
        let failed = DispatchSemaphore(value: 0)
        let read = Locked<[Int64]?>(nil)
        let done = DispatchSemaphore(value: 0)
        let batchesBefore = queue.batchCount
        queue.submit({ db in
            try db.addMember(room: room, user: carol, role: .member, joined: "t")
            _ = try db.memberIDs(ofRoom: room)
            throw Refused()
        }, deferWake: true) { _ in failed.signal() }
        queue.submit({ db in try db.memberIDs(ofRoom: room) }, deferWake: true) { result in
            read.withLock { $0 = try? result.get() }
            done.signal()
        }
        queue.wakeForQueuedJobs()
        try #require(failed.wait(timeout: .now() + 60) == .success, "the failing job did not finish")
        try #require(done.wait(timeout: .now() + 60) == .success, "the reading job did not finish")
        #expect(read.withLock { $0 } == [alice], "the rolled-back job's member list was read again")
        #expect(queue.batchCount == batchesBefore + 1, "both jobs ran in one batch")
        #expect(queue.rerunCount > 0, "the batch ran again with savepoints")
    }

    /// The update reads the task back as `task(id:)` does, and the next notice moment it
    /// finds is the one a fresh query finds, also when this task held the earliest one.
    @Test func aTaskUpdateReadsBackTheTaskAndTheNextNotice() throws {
        let queue = try PostgresQueue(conninfo: try ThrowawayPostgres.sharedCluster().makeDatabase(), node: "a")
        defer { queue.close() }
        try queue.syncPostgres { db in
            let alice = try db.createAccount(name: "alice", passwordHash: "x", created: "t").id
            let soon = try db.insertTask(TaskDraft(room: nil, owner: alice, title: "soon", creator: alice, created: "t"))
            let later = try db.insertTask(TaskDraft(room: nil, owner: alice, title: "later", creator: alice, created: "t"))
            func setDue(_ id: Int64, _ due: String) throws -> Int64? {
                var task = try #require(try db.task(id: id))
                task.due = due
                let back = try db.updateTaskReadingBack(TaskLifecycle.readyToStore(task))
                #expect(back == (try db.task(id: id)))
                let next = try db.nextNoticeTime()
                let fresh = try db.connection.query("""
                    SELECT min(due_at) FROM tasks WHERE NOT done AND NOT overdue_sent AND due_at IS NOT NULL
                    """).firstRow().int64(0)
                #expect(next == fresh, "after \(id) due \(due)")
                return next
            }
            let first = try setDue(soon, "2030-01-01")
            let second = try setDue(later, "2031-01-01")
            #expect(first == second, "the earlier task stays the next one")
            let moved = try setDue(soon, "2032-01-01")
            #expect(moved != first, "the next moment moved on to the other task")
        }
    }
}

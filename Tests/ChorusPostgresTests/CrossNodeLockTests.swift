import ChorusLocking
import ChorusPostgres
import ChorusStore
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// Reads that lead to a write lock what they read, so two nodes' commands on one row are
/// ordered as one writer would order them. Each test holds node A's transaction open at
/// the read, gives node B the same read, checks that B waits, then lets A commit: B must
/// see A's outcome. Without the lock B answers at once from the old row.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct CrossNodeLockTests {
    /// Two queues (two nodes) on one fresh database, with alice, bob and alice's room.
    final class TwoNodes: Sendable {
        let a: PostgresQueue
        let b: PostgresQueue
        let alice: Int64
        let bob: Int64
        let room: Int64

        init() throws {
            let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
            a = try PostgresQueue(conninfo: conninfo, node: "a")
            b = try PostgresQueue(conninfo: conninfo, node: "b")
            (alice, bob, room) = try a.syncPostgres { db in
                let alice = try db.createAccount(name: "alice", passwordHash: "x", created: "t").id
                let bob = try db.createAccount(name: "bob", passwordHash: "x", created: "t").id
                let room = try db.createRoom(name: "Flat", ownerID: alice, created: "t")
                try db.addMember(room: room, user: bob, role: .member, joined: "t")
                return (alice, bob, room)
            }
        }

        deinit {
            a.close()
            b.close()
        }

        /// Runs `first` on A up to its read (`reached`), holds A's transaction there, runs
        /// `second` on B, and checks B has not finished 0.5 s later; then lets A finish.
        /// Returns B's result and whether B waited.
        func race<T: Sendable>(first: @escaping @Sendable (PostgresStore, _ reached: () -> Void) throws -> Void,
                               second: @escaping @Sendable (PostgresStore) throws -> T) throws -> (T, waited: Bool) {
            let atRead = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let firstDone = DispatchSemaphore(value: 0)
            let firstError = Locked<(any Error)?>(nil)
            a.submitPostgres({ db in
                try first(db) {
                    atRead.signal()
                    // Bounded, so the queue still closes if the test gave up before releasing it.
                    _ = release.wait(timeout: .now() + 120)
                }
            }, completion: { result in
                if case .failure(let error) = result { firstError.withLock { $0 = error } }
                firstDone.signal()
            })
            try #require(atRead.wait(timeout: .now() + 60) == .success, "the first node's job did not reach its read: \(String(describing: firstError.withLock { $0 }))")
            let secondDone = DispatchSemaphore(value: 0)
            let secondResult = Locked<Result<T, any Error>?>(nil)
            b.submitPostgres(second, completion: { result in
                secondResult.withLock { $0 = result }
                secondDone.signal()
            })
            let waited = secondDone.wait(timeout: .now() + 0.5) == .timedOut
            release.signal()
            try #require(firstDone.wait(timeout: .now() + 60) == .success, "the first node's job did not finish")
            if let error = firstError.withLock({ $0 }) { throw error }
            if waited { try #require(secondDone.wait(timeout: .now() + 60) == .success, "the second node's job did not finish") }
            return (try #require(secondResult.withLock { $0 }).get(), waited)
        }
    }

    /// Two nodes changing one task: the second reads it only once the first committed.
    @Test func aTaskReadForAChangeWaitsForTheOtherNodesChange() throws {
        let nodes = try TwoNodes()
        let (room, alice) = (nodes.room, nodes.alice)
        let task = try nodes.a.syncPostgres { db in
            try db.insertTask(TaskDraft(room: room, owner: nil, title: "Dishes", creator: alice, created: "t"))
        }
        let (title, waited) = try nodes.race(first: { db, reached in
            _ = try db.task(id: task)
            reached()
            try db.connection.execute("UPDATE tasks SET title = 'Dishes, done by a' WHERE id = $1", [.int(task)])
        }, second: { db in try db.task(id: task)?.title })
        #expect(waited, "node b read the task while node a was changing it")
        #expect(title == "Dishes, done by a")
    }

    /// A notice claimed by one node's scheduler is skipped by another's at the same moment,
    /// and once the first committed it is sent: stored once for the cluster.
    @Test func aDueNoticeIsClaimedByOneNode() throws {
        let nodes = try TwoNodes()
        let (room, alice) = (nodes.room, nodes.alice)
        let task = try nodes.a.syncPostgres { db in
            let id = try db.insertTask(TaskDraft(room: room, owner: nil, title: "Bins", creator: alice, created: "t"))
            try db.connection.execute("UPDATE tasks SET due_at = 100 WHERE id = $1", [.int(id)])
            return id
        }
        let (racing, waited) = try nodes.race(first: { db, reached in
            #expect(try db.dueNotices(.overdue, now: 200) == [task])
            reached()
            try db.markNoticeSent(.overdue, task: task)
        }, second: { db in try db.dueNotices(.overdue, now: 200) })
        #expect(!waited, "a scheduler waited for another's claim instead of skipping it")
        #expect(racing.isEmpty, "both nodes claimed the notice")
        #expect(try nodes.b.syncPostgres { db in try db.dueNotices(.overdue, now: 200) }.isEmpty)
    }

    /// An event's audience is read as of its id: a SAY on node b racing bob's removal on
    /// node a (which took an id first) leaves bob out, as SYNC's spans do.
    @Test func anAudienceIsReadAsOfTheEventsID() throws {
        let nodes = try TwoNodes()
        let (room, bob) = (nodes.room, nodes.bob)
        let (audience, waited) = try nodes.race(first: { db, reached in
            try db.removeMember(room: room, user: bob)
            _ = try db.appendEvent(room: room, user: nil, name: "member.removed", by: "alice", at: "t", payload: "{}",
                                   text: "alice removed bob", audience: [nodes.alice, bob])
            reached()
        }, second: { db in try db.memberIDs(ofRoom: room) })
        #expect(waited, "the audience was read while an earlier id's removal was uncommitted")
        #expect(audience == [nodes.alice])
    }

    /// The other way round: a member added on node b while node a's event (its id taken
    /// only at a's COMMIT) has read the room's audience waits for that commit, so the event
    /// that left carol out has the smaller id, as SYNC's spans have it.
    @Test func aMemberAddedWaitsForAnAudienceBeingRead() throws {
        let nodes = try TwoNodes()
        let room = nodes.room
        let carol = try nodes.a.syncPostgres { db in try db.createAccount(name: "carol", passwordHash: "x", created: "t").id }
        let (audience, waited) = try nodes.race(first: { db, reached in
            let audience = try db.memberIDs(ofRoom: room)
            _ = try db.stageEvent(room: room, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "hi",
                                  audience: audience)
            reached()
        }, second: { db in
            try db.addMember(room: room, user: carol, role: .member, joined: "t")
            return try db.memberIDs(ofRoom: room)
        })
        #expect(waited, "carol was added while an audience read without her was uncommitted")
        #expect(audience == [nodes.alice, nodes.bob, carol].sorted())
    }

    /// A one-use invite joins once: a second node's JOIN reads it after the first used it up.
    @Test func aOneUseInviteIsUsedOnce() throws {
        let nodes = try TwoNodes()
        let (room, alice) = (nodes.room, nodes.alice)
        try nodes.a.syncPostgres { db in
            try db.createInvite(code: "ONCE-1234", room: room, createdBy: alice, usesLeft: 1, expires: nil, created: "t")
        }
        let (found, waited) = try nodes.race(first: { db, reached in
            #expect(try db.invite(code: "ONCE-1234") != nil)
            reached()
            try db.useInvite(code: "ONCE-1234")
        }, second: { db in try db.invite(code: "ONCE-1234") })
        #expect(waited, "node b read the invite while node a was using it")
        #expect(found == nil, "a one-use invite was found again after its use")
    }
}

import ChorusLocking
import ChorusPostgres
import ChorusStore
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// CLUSTER.md item 14: two nodes' batches deadlock, one (or both, in turn) runs again,
/// and every job of both batches gets its own reply, not a neighbour's or a stale one.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct DeadlockRerunTests {
    /// Each node's batch: two jobs that make an account and return its id, the job that
    /// locks two accounts in the opposite order to the other node's, two more makers.
    /// Every maker's reply is the id its own account got; each locker's reply names its
    /// own node; the accounts exist once each.
    @Test func everyJobOfADeadlockedBatchGetsItsOwnReply() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try PostgresQueue(conninfo: conninfo, node: "a")
        let b = try PostgresQueue(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        _ = try a.sync { db in
            try ["ann", "bob"].map { try db.createAccount(name: $0, passwordHash: "h", created: "t").id }
        }
        let holds = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let firstRuns = Locked([true, true])
        let made = Locked<[String: Int64]>([:])
        let lockers = Locked<[String]>([])
        let failures = Locked<[String]>([])
        let done = DispatchGroup()
        // Holds each queue so its five jobs share its next batch.
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
        for (index, queue, first, second) in [(0, a, "ann", "bob"), (1, b, "bob", "ann")] {
            func maker(_ name: String) {
                done.enter()
                queue.submit({ db in try db.createAccount(name: name, passwordHash: "h", created: "t").id },
                             completion: { result in
                                 switch result {
                                 case .success(let id): made.withLock { $0[name] = id }
                                 case .failure(let error): failures.withLock { $0.append("\(name): \(error)") }
                                 }
                                 done.leave()
                             })
            }
            maker("n\(index)-1")
            maker("n\(index)-2")
            done.enter()
            queue.submit({ db -> String in
                _ = try db.setAdmin(name: first, true)
                if firstRuns.withLock({ runs in defer { runs[index] = false }; return runs[index] }) {
                    holds[index].signal()
                    _ = holds[1 - index].wait(timeout: .now() + 1.5)
                }
                _ = try db.setDisabled(name: second, true)
                return "node \(index)"
            }, completion: { result in
                switch result {
                case .success(let said): lockers.withLock { $0.append("\(index): \(said)") }
                case .failure(let error): failures.withLock { $0.append("locker \(index): \(error)") }
                }
                done.leave()
            })
            maker("n\(index)-3")
            maker("n\(index)-4")
        }
        release.signal()
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(failures.withLock { $0 } == [])
        #expect(a.rerunCount + b.rerunCount >= 1, "one of the batches was the deadlock's victim")
        #expect(lockers.withLock { $0 }.sorted() == ["0: node 0", "1: node 1"])
        let replies = made.withLock { $0 }
        #expect(replies.count == 8)
        let stored = try a.sync { db in try replies.keys.sorted().map { ($0, try db.account(named: $0)?.id) } }
        for (name, id) in stored { #expect(id == replies[name], "\(name) was told another account's id") }
        #expect(try a.sync { try $0.accountCount() } == 10, "every account made once")
    }
}

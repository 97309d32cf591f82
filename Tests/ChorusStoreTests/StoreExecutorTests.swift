import ChorusCore
import ChorusStore
import Dispatch
import Foundation
import Testing

/// What the server relies on from every executor: order, durability before completion,
/// a failing job keeping nothing, closing, and errors that arrive as thrown.
@Suite struct StoreExecutorTests {
    /// Holds the executor's thread until released, so the next jobs queue up behind it.
    private func block(_ executor: any StoreExecutor) throws -> DispatchSemaphore {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        executor.submit({ _ in
            started.signal()
            // Bounded, so the executor still closes if the test gave up before releasing it.
            _ = release.wait(timeout: .now() + 120)
        }, completion: { _ in })
        try #require(started.wait(timeout: .now() + 60) == .success, "the holding job did not start")
        return release
    }

    /// When a completion runs, the job's change is committed: a second store open on the
    /// same data already sees it.
    @Test(arguments: StoreEngine.all) func resultsArriveAfterCommit(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let other = try store.openAnother()
        defer { other.close() }
        let seen = Collected<String?>()
        let done = DispatchSemaphore(value: 0)
        store.executor.submit({ db in
            try db.createAccount(name: "alice", passwordHash: "h", created: "t")
        }, completion: { _ in
            seen.append(try? other.sync { try $0.account(named: "alice")?.name })
            done.signal()
        })
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.all == ["alice"])
    }

    /// A job that throws keeps none of its changes and gets its own error; the jobs queued
    /// around it keep theirs and succeed.
    @Test(arguments: StoreEngine.all) func throwingJobKeepsNeighbours(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let release = try block(store.executor)
        let results = Collected<(Int, ChorusError?)>()
        let done = DispatchGroup()
        for n in 1...3 {
            done.enter()
            store.executor.submit({ db in
                _ = try db.createAccount(name: "job\(n)", passwordHash: "h", created: "t")
                if n == 2 { throw ChorusError(422, "job 2 fails") }
            }, completion: { result in
                switch result {
                case .success: results.append((n, nil))
                case .failure(let error): results.append((n, error as? ChorusError ?? ChorusError(500, "\(error)")))
                }
                done.leave()
            })
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.all.map(\.0) == [1, 2, 3])
        #expect(results.all.map(\.1) == [nil, ChorusError(422, "job 2 fails"), nil])
        #expect(try store.run { db in try ["job1", "job2", "job3"].map { try db.account(named: $0) != nil } } == [true, false, true])
    }

    /// Jobs from several threads run in each thread's submission order, and completions
    /// come back in that order too.
    @Test(arguments: StoreEngine.all) func orderPreservedAcrossThreads(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let executor = store.executor
        let done = DispatchGroup()
        let failures = Collected<String>()
        let completed = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: 4) { who in
            for seq in 0..<250 {
                done.enter()
                executor.submit({ db in
                    _ = try db.insertMessage(room: home.room, sender: home.alice, text: "\(who) \(seq)", at: "t")
                }, completion: { result in
                    if case .failure(let error) = result { failures.append("\(error)") }
                    completed.append("\(who) \(seq)")
                    done.leave()
                })
            }
        }
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failures.all.isEmpty)
        let stored = try store.run { try $0.history(room: home.room, limit: 2000, beforeID: nil).map(\.text) }
        #expect(stored.count == 1000)
        #expect(completed.all == stored)
        for who in 0..<4 {
            #expect(stored.filter { $0.hasPrefix("\(who) ") } == (0..<250).map { "\(who) \($0)" })
        }
    }

    /// close() runs what is queued, then refuses new work as unavailable; the data stays.
    @Test(arguments: StoreEngine.all) func closeDrainsThenRefuses(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let succeeded = Collected<Int>()
        for n in 0..<100 {
            store.executor.submit({ db in
                _ = try db.insertMessage(room: home.room, sender: home.alice, text: "\(n)", at: "t")
            }, completion: { result in
                if case .success = result { succeeded.append(n) }
            })
        }
        store.executor.close()
        #expect(succeeded.all == Array(0..<100))

        let late = Collected<StoreError?>()
        store.executor.submit({ _ in 1 }, completion: { late.append((try? $0.get()) == nil ? StoreError(.failed) : nil) })
        #expect(late.all.count == 1)
        let refusal = #expect(throws: StoreError.self) { try store.executor.sync { _ in 1 } }
        #expect(refusal?.kind == .unavailable && refusal?.reason == "shutting down")
        store.executor.close()

        try store.reopen()
        #expect(try store.run { try $0.history(room: home.room, limit: 200, beforeID: nil).count } == 100)
    }

    /// Errors a job throws arrive unchanged; the store's own are `StoreError`s.
    @Test(arguments: StoreEngine.all) func errorsPassThrough(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let own = #expect(throws: ChorusError.self) { try store.run { _ in throw ChorusError(404, "no such thing") } }
        #expect(own == ChorusError(404, "no such thing"))
        _ = try store.run { try $0.createAccount(name: "alice", passwordHash: "h", created: "t") }
        let duplicate = #expect(throws: StoreError.self) {
            try store.run { try $0.createAccount(name: "alice", passwordHash: "h", created: "t") }
        }
        #expect(duplicate?.kind == .duplicate)
    }

    /// sync from the executor's own thread fails instead of waiting for itself forever.
    @Test(arguments: StoreEngine.all) func syncFromOwnThreadThrows(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let executor = store.executor
        let inner = try store.run { _ -> StoreError.Kind? in
            do {
                _ = try executor.sync { _ in 1 }
                return nil
            } catch let error as StoreError {
                return error.kind
            }
        }
        #expect(inner == .failed)
    }

    /// The batch-end handler runs after each batch's completions, before the next batch's:
    /// the server wakes its loops there, so no reply waits for later work.
    @Test(arguments: StoreEngine.all) func batchEndFollowsCompletions(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let log = Collected<String>()
        store.executor.setBatchEndHandler { log.append("end") }
        for n in 0..<20 {
            let done = DispatchSemaphore(value: 0)
            store.executor.submit({ _ in n }, completion: { _ in
                log.append("job\(n)")
                done.signal()
            })
            #expect(done.wait(timeout: .now() + 10) == .success)
        }
        // The last end comes just after the last completion: give it a moment.
        for _ in 0..<500 where log.all.last != "end" { Thread.sleep(forTimeInterval: 0.01) }
        let entries = log.all
        for n in 0..<20 {
            let job = try #require(entries.firstIndex(of: "job\(n)"))
            let next = entries.firstIndex(of: "job\(n + 1)") ?? entries.endIndex
            #expect(entries[(job + 1)..<next].contains("end"), "an end after job \(n), before the next")
        }
    }
}

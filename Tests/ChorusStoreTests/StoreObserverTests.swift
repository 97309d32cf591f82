import ChorusLocking
import ChorusStore
import Dispatch
import Foundation
import Testing

/// What every executor tells its `StoreObserver` (the server's metrics and `/healthz`):
/// each batch with its time and its COMMIT's, and each job that ended in a store error.
@Suite(.timeLimit(.minutes(10))) struct StoreObserverTests {
    /// Keeps what it heard; `batches` waits for a batch of a given size.
    final class Recorder: StoreObserver {
        private let heard = Locked<(reports: [StoreBatchReport], errors: [StoreError.Kind])>(([], []))
        private let batchEnded = DispatchSemaphore(value: 0)

        func batchFinished(_ report: StoreBatchReport) {
            heard.withLock { $0.reports.append(report) }
            batchEnded.signal()
        }

        func jobFailed(_ error: StoreError) {
            heard.withLock { $0.errors.append(error.kind) }
        }

        var errors: [StoreError.Kind] { heard.withLock { $0.errors } }

        /// The first batch of `jobs` jobs, once it has been reported (nil after 10 s).
        func batch(of jobs: Int) -> StoreBatchReport? {
            let deadline = DispatchTime.now() + 10
            while true {
                if let found = heard.withLock({ $0.reports.first { $0.jobs == jobs } }) { return found }
                guard batchEnded.wait(timeout: deadline) == .success else { return nil }
            }
        }
    }

    @Test(arguments: StoreEngine.all) func aBatchReportsItsTimesAndEachFailedJobItsKind(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let recorder = Recorder()
        store.executor.setObserver(recorder)
        // Three jobs queued behind a held one commit as one batch.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        store.executor.submit({ _ in
            started.signal()
            // Bounded, so the executor still closes if the test gave up before releasing it.
            _ = release.wait(timeout: .now() + 120)
        }, completion: { _ in })
        try #require(started.wait(timeout: .now() + 60) == .success, "the holding job did not start")
        let done = DispatchSemaphore(value: 0)
        for fails in [false, true, false] {
            store.executor.submit({ db in
                if fails { throw StoreError(.notFound, reason: "no such thing") }
                _ = try db.createAccount(name: "a\(UUID().uuidString.prefix(8).lowercased())", passwordHash: "h", created: "t")
            }, completion: { _ in done.signal() })
        }
        release.signal()
        for _ in 0..<3 { #expect(done.wait(timeout: .now() + 10) == .success) }
        let report = try #require(recorder.batch(of: 3))
        #expect(report.failure == nil)
        let commit = try #require(report.commitSeconds)
        #expect(commit >= 0 && commit <= report.seconds)
        #expect(recorder.errors == [.notFound])

        // Closed, a job is refused as unavailable, and the observer hears that too.
        store.executor.close()
        let refused = DispatchSemaphore(value: 0)
        store.executor.submit({ _ in }, completion: { _ in refused.signal() })
        #expect(refused.wait(timeout: .now() + 10) == .success)
        #expect(recorder.errors == [.notFound, .unavailable])
    }
}

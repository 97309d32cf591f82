import CLinux
import Dispatch
import ChorusLocking
import ChorusStore
#if canImport(Glibc)
import Glibc
#endif

/// One submitted job with its result type erased, so jobs of any type share one queue.
struct PostgresJob: Sendable {
    /// Runs the job (again, on a rerun) and returns how to report it once the batch ends.
    let perform: @Sendable (PostgresStore) -> PostgresJobOutcome
    /// Reports a failure of the whole batch, or of a job that never ran.
    let fail: @Sendable (any Error) -> Void
}

/// A job that ran; its completion waits for the batch's COMMIT.
struct PostgresJobOutcome {
    /// The job's own error, if it threw.
    let error: (any Error)?
    /// Calls the completion: with the job's own result (its provisional event ids made
    /// final) when given no error, else with this error.
    let deliver: ((any Error)?, FinalEventIDs) -> Void
}

/// The queue's state and its thread's loop; the thread holds this, not the queue, so a
/// released queue can close itself while its thread still runs. The connection and the
/// store live in `run`'s frame on that thread only.
final class PostgresQueueWorker: Sendable {
    struct State {
        var jobs: [PostgresJob] = []
        var spare: [PostgresJob] = []
        /// Jobs in the batch now running.
        var running = 0
        /// The thread waits (or is about to) on `wake`; whoever clears this signals once.
        var sleeping = false
        var closing = false
        var thread: pthread_t?
        var opened: Result<Void, StoreError>?
        var batches = 0
        var reruns = 0
        /// The writer's server process, as of the last connect or batch (a batch may reconnect).
        var backendPID: Int32 = 0
    }

    let conninfo: String
    let node: String
    let maxBatchSize: Int
    let state = Locked(State())
    let batchEndHandler = Locked<BatchEndHandler?>(nil)
    /// Hears each batch's timing and each failed job (`StoreObserver`).
    let observer = StoreObserverSlot()
    let wake = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    /// Signalled when the thread ends; each waiter signals again so any number can wait.
    let finished = DispatchSemaphore(value: 0)

    /// Boxed so reading it back through `withLock` does not wrap it in a new thunk each time.
    final class BatchEndHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    init(conninfo: String, node: String, maxBatchSize: Int) {
        self.conninfo = conninfo
        self.node = node
        self.maxBatchSize = maxBatchSize
    }

    var isWorkerThread: Bool {
        state.withLock { $0.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    func batchEnded() { batchEndHandler.withLock { $0 }?.run() }

    /// Queues a job (waking a sleeping thread unless told not to), or fails it when closing.
    func submit(_ job: PostgresJob, wakeWorker: Bool) {
        let (queued, signal): (Bool, Bool) = state.withLock { state in
            guard !state.closing else { return (false, false) }
            state.jobs.append(job)
            guard wakeWorker && state.sleeping else { return (true, false) }
            state.sleeping = false
            return (true, true)
        }
        if signal { wake.signal() }
        if !queued {
            job.fail(StoreError.shuttingDown)
            batchEnded()
        }
    }

    func wakeIfQueued() {
        let signal: Bool = state.withLock { state in
            guard state.sleeping && !state.jobs.isEmpty else { return false }
            state.sleeping = false
            return true
        }
        if signal { wake.signal() }
    }

    /// Asks the thread to end once drained; true when the caller may wait for that.
    func requestClose() -> Bool {
        let (signal, onWorker): (Bool, Bool) = state.withLock { state in
            let onWorker = state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            guard !state.closing else { return (false, onWorker) }
            state.closing = true
            guard state.sleeping else { return (false, onWorker) }
            state.sleeping = false
            return (true, onWorker)
        }
        if signal { wake.signal() }
        return !onWorker
    }

    func waitUntilFinished() {
        finished.wait()
        finished.signal()
    }

    /// The thread body: connect and migrate, then run batches until closed and drained.
    func run() {
        defer { finished.signal() }
        let connection: PostgresConnection
        let store: PostgresStore
        do {
            connection = try PostgresConnection(conninfo, applicationName: "chorusd \(node)")
            try PostgresSession.configure(connection)
            store = try PostgresStore(connection: connection)
            store.node = node
        } catch {
            let failure = (error as? PostgresError)?.storeError ?? (error as? StoreError)
                ?? StoreError(.failed, message: "\(error)")
            state.withLock { $0.opened = .failure(failure.doing("opening the PostgreSQL store")) }
            started.signal()
            return
        }
        state.withLock {
            $0.thread = pthread_self()
            $0.opened = .success(())
            $0.backendPID = connection.backendPID
        }
        started.signal()
        let batches = PostgresBatchRunner(connection: connection, store: store) { [state] in
            state.withLock { $0.reruns += 1 }
        }
        while var batch = nextBatch(settling: batches) {
            let report = batches.run(batch)
            observer.current?.batchFinished(report)
            batch.removeAll(keepingCapacity: true)
            let pid = connection.backendPID
            state.withLock { state in
                state.running = 0
                state.backendPID = pid
                swap(&state.spare, &batch)
            }
            batchEnded()
        }
        // Closing with a COMMIT still unsettled: one last question, then 503.
        if batches.holdsUnsettledBatch {
            batches.settleHeld(patience: PostgresCommitSettlement.patience, givingUp: true)
            batchEnded()
        }
        connection.close()
    }

    private enum Next { case batch([PostgresJob]), stop, sleep }

    /// How often an idle thread asks again about a held batch's COMMIT.
    private static let settleEvery: DispatchTimeInterval = .milliseconds(250)

    private func nextBatch(settling runner: PostgresBatchRunner) -> [PostgresJob]? {
        while true {
            let next: Next = state.withLock { state in
                if state.jobs.isEmpty {
                    if state.closing { return .stop }
                    state.sleeping = true
                    return .sleep
                }
                let batch: [PostgresJob]
                if state.jobs.count <= maxBatchSize {
                    batch = state.jobs.takeAll(reusing: &state.spare)
                } else {
                    batch = Array(state.jobs.prefix(maxBatchSize))
                    state.jobs.removeFirst(maxBatchSize)
                }
                state.running = batch.count
                state.batches += 1
                return .batch(batch)
            }
            switch next {
            case .batch(let batch): return batch
            case .stop: return nil
            case .sleep:
                guard runner.holdsUnsettledBatch else { wake.wait(); continue }
                if wake.wait(timeout: .now() + Self.settleEvery) == .timedOut {
                    // Whoever cleared `sleeping` meanwhile has signalled, or is about to.
                    let signalled = state.withLock { state in
                        defer { state.sleeping = false }
                        return !state.sleeping
                    }
                    if signalled { wake.wait() }
                    runner.settleHeld()
                    if !runner.holdsUnsettledBatch { batchEnded() }
                }
            }
        }
    }
}

import CSQLite
import Dispatch
import ChorusLocking
#if canImport(Glibc)
import Glibc
#endif
import ChorusStore

/// One submitted job, with its result type erased so jobs of any type share one queue.
struct QueueJob: Sendable {
    /// Runs the job, in its own savepoint when `guarded`, and returns how to report it
    /// once the batch ends.
    let perform: @Sendable (_ database: Database, _ guarded: Bool) -> JobOutcome
    /// Reports a failure without running (the queue is shutting down or the batch could not start).
    let fail: @Sendable (any Error) -> Void
}

/// A job that ran but whose completion waits for the batch's COMMIT.
struct JobOutcome {
    /// The job's own error, if it threw.
    let error: (any Error)?
    /// Calls the completion: with the job's own result when given nil, else with this error.
    let deliver: ((any Error)?) -> Void
}

/// The state and thread body behind `DatabaseQueue`.
///
/// Kept apart from `DatabaseQueue` so the thread holds this and not the queue: the
/// queue can then be released (and close itself) while the thread still runs.
/// The `Database` never appears here as a stored property; it lives in `run`'s frame
/// on the worker thread, which is what keeps it single-threaded without any
/// `@unchecked Sendable`.
final class QueueWorker: Sendable {
    struct State {
        /// Waiting jobs, oldest first.
        var jobs: [QueueJob] = []
        /// Jobs taken into the current batch and not yet reported.
        var running = 0
        /// The worker is waiting (or about to wait) on `wake`; whoever clears this signals it once.
        var sleeping = false
        var closing = false
        /// The worker thread, so `sync` and `close` can tell when they are called from it.
        var thread: pthread_t?
        /// How opening the database went; set once before `started` is signalled.
        var opened: Result<Void, any Error>?
        /// Batches taken so far, for tests of group commit.
        var batches = 0
        /// The last batch's emptied buffer, swapped in for `jobs` when a batch is taken.
        var spareBatch: [QueueJob] = []
        /// Checkpoints run between batches so far, and the helper; for tests.
        var checkpoints = 0
        var checkpointHelper: CheckpointHelper?
    }

    let maxBatchSize: Int
    let state = Locked(State())
    /// Called on the worker thread after each batch's completions (see
    /// `DatabaseQueue.setBatchEndHandler`). Boxed: a bare closure read back through
    /// `withLock`'s inout is re-wrapped in a thunk on every write-back, a chain that grew
    /// with every batch.
    let batchEndHandler = Locked<BatchEndHandler?>(nil)

    final class BatchEndHandler: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Hears each batch's timing and each failed job (`StoreObserver`).
    let observer = StoreObserverSlot()

    func batchEnded() {
        batchEndHandler.withLock { $0 }?.run()
    }
    /// Counts wake-ups; `sleeping` ensures at most one is outstanding.
    let wake = DispatchSemaphore(value: 0)
    let started = DispatchSemaphore(value: 0)
    /// Signalled when the thread ends; each waiter re-signals so any number can wait.
    let finished = DispatchSemaphore(value: 0)

    init(maxBatchSize: Int) {
        self.maxBatchSize = maxBatchSize
    }

    var isWorkerThread: Bool {
        state.withLock { state in
            state.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
    }

    /// Queues a job, or fails it at once when closing. Unless `wakeWorker`, a sleeping
    /// worker is left asleep until `wakeIfQueued` (a running one takes the job with its
    /// next batch).
    func submit(_ job: QueueJob, wakeWorker: Bool = true) {
        enum Decision { case queued, queuedAndWake, refused }
        let decision: Decision = state.withLock { state in
            if state.closing { return .refused }
            state.jobs.append(job)
            guard wakeWorker && state.sleeping else { return .queued }
            state.sleeping = false
            return .queuedAndWake
        }
        switch decision {
        case .queued: break
        case .queuedAndWake: wake.signal()
        case .refused:
            job.fail(StoreError.shuttingDown)
            batchEnded()
        }
    }

    /// Wakes a sleeping worker if jobs wait.
    func wakeIfQueued() {
        let signal: Bool = state.withLock { state in
            guard state.sleeping && !state.jobs.isEmpty else { return false }
            state.sleeping = false
            return true
        }
        if signal { wake.signal() }
    }

    /// Asks the thread to finish once the queue is empty. True when the caller may wait for it.
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

    /// The thread body: open, then run batches until closed and drained.
    func run(path: String, prepare: (@Sendable (Database) throws -> Void)?) {
        defer { finished.signal() }
        let database: Database
        let helper: CheckpointHelper
        do {
            database = try Database(path: path)
            try prepare?(database)
            try database.deferCheckpoints()
            helper = try CheckpointHelper(path: path)
        } catch {
            state.withLock { $0.opened = .failure(error) }
            started.signal()
            return
        }
        state.withLock {
            $0.thread = pthread_self()
            $0.opened = .success(())
            $0.checkpointHelper = helper
        }
        started.signal()
        while var batch = nextBatch() {
            run(batch, on: database)
            // Emptied outside the lock: releasing a job's closure may run any deinit.
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                state.running = 0
                swap(&state.spareBatch, &batch)
            }
            batchEnded()
            checkpointIfDue(database, helper: helper)
        }
        // The helper closes first, so this connection is the last and SQLite copies the
        // whole log back and removes it as it closes.
        helper.stop()
        database.close()
    }

    /// After a batch's completions, once the log is long enough: copies it back here when
    /// no job waits, when the helper has copied the bulk of it (only the rest is left), or
    /// regardless once it is very long; otherwise asks the helper to copy the bulk first
    /// (Database+Checkpoint.swift says why not inside the COMMIT). A failed checkpoint
    /// only leaves the log longer.
    private func checkpointIfDue(_ database: Database, helper: CheckpointHelper) {
        guard database.logPages >= Database.checkpointPages else { return }
        let waiting = state.withLock { !$0.jobs.isEmpty }
        guard !waiting || helper.copied || database.logPages >= Database.checkpointDeadlinePages else {
            helper.copyOnce()
            return
        }
        if (try? database.checkpoint()) == true { helper.reset() }
        state.withLock { $0.checkpoints += 1 }
    }

    private enum Next { case batch([QueueJob]), stop, sleep }

    /// Everything queued so far (up to the cap), or nil once closing and empty.
    private func nextBatch() -> [QueueJob]? {
        while true {
            let next: Next = state.withLock { state in
                if state.jobs.isEmpty {
                    if state.closing { return .stop }
                    state.sleeping = true
                    return .sleep
                }
                let batch: [QueueJob]
                if state.jobs.count <= maxBatchSize {
                    batch = state.jobs.takeAll(reusing: &state.spareBatch)
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
            case .sleep: wake.wait()
            }
        }
    }

    private func run(_ batch: [QueueJob], on database: Database) {
        var tally = BatchTally()
        var next = 0
        while next < batch.count {
            next = runTransaction(batch, from: next, guarded: false, on: database, tally: &tally)
        }
        observer.current?.batchFinished(tally.report(jobs: batch.count))
    }

    /// Runs jobs from `start` inside one transaction and commits once; returns the index
    /// of the first job not yet handled (normally the end, earlier if SQLite rolled the
    /// transaction back under a job, in which case the rest get a fresh transaction).
    ///
    /// Unguarded, jobs run without savepoints: a savepoint makes SQLite copy every page
    /// the job touches into a statement journal, and nearly every job either succeeds or
    /// fails before writing. A job that fails after changing rows cannot be undone alone,
    /// so then the whole transaction is rolled back and the batch runs again guarded,
    /// each job in its own savepoint. Jobs only touch the database, so running one twice
    /// before anything is committed or reported is harmless.
    private func runTransaction(_ batch: [QueueJob], from start: Int, guarded: Bool, on database: Database,
                                tally: inout BatchTally) -> Int {
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            tally.ended(failure: error)
            for job in batch[start...] { job.fail(error) }
            return batch.count
        }
        var outcomes: [JobOutcome] = []
        outcomes.reserveCapacity(batch.count - start)
        for index in start..<batch.count {
            let changesBefore = database.totalChanges
            let outcome = batch[index].perform(database, guarded)
            if !guarded && outcome.error != nil && database.isInTransaction && database.totalChanges != changesBefore {
                database.rollback()
                return runTransaction(batch, from: start, guarded: true, on: database, tally: &tally)
            }
            outcomes.append(outcome)
            if !database.isInTransaction {
                // Disk full, I/O error, or a job that ended the transaction itself: the
                // earlier jobs' changes are gone, so they must not be told "OK".
                let lost = outcome.error as? StoreError ?? StoreError(
                    code: SQLITE_ABORT,
                    message: "the batch transaction was rolled back" + (outcome.error.map { " after: \($0)" } ?? ""))
                tally.ended(failure: lost)
                for earlier in outcomes { earlier.deliver(earlier.error == nil ? lost : nil) }
                return index + 1
            }
        }
        let committing = DispatchTime.now().uptimeNanoseconds
        do {
            try database.execute("COMMIT")
        } catch {
            database.rollback()
            tally.ended(failure: error)
            for outcome in outcomes { outcome.deliver(error) }
            return batch.count
        }
        tally.committed(since: committing)
        for outcome in outcomes { outcome.deliver(nil) }
        return batch.count
    }
}

/// A batch's timing as it runs, for its `StoreBatchReport`: from its start to the end of
/// its last transaction, and the COMMIT that kept it.
struct BatchTally {
    private let started = DispatchTime.now().uptimeNanoseconds
    private var ended: UInt64?
    private var commitNanoseconds: UInt64?
    private var failure: StoreError.Kind?

    /// A COMMIT that began at `start` succeeded now.
    mutating func committed(since start: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        commitNanoseconds = (commitNanoseconds ?? 0) + (now - start)
        ended = now
    }

    /// The transaction failed as a whole (BEGIN, COMMIT, or rolled back under a job).
    mutating func ended(failure error: any Error) {
        ended = DispatchTime.now().uptimeNanoseconds
        failure = (error as? StoreError)?.kind ?? .failed
    }

    func report(jobs: Int) -> StoreBatchReport {
        let end = ended ?? DispatchTime.now().uptimeNanoseconds
        return StoreBatchReport(jobs: jobs, seconds: Double(end - started) / 1e9,
                                commitSeconds: commitNanoseconds.map { Double($0) / 1e9 },
                                failure: commitNanoseconds == nil ? failure : nil)
    }
}

import CLinux
import Dispatch
import Foundation
import ChorusLocking
import ChorusStore

/// SQLite's `StoreExecutor`: owns one `Database` on a dedicated thread; jobs submitted
/// from any thread run in submission order. This is the only way the server touches the
/// database while running.
///
/// Group commit: the thread takes every job queued so far (up to `maxBatchSize`) as one
/// batch and runs it inside one `BEGIN IMMEDIATE` transaction. A job that throws undoes
/// only its own changes and gets its own error: jobs run bare first, and if one fails
/// after changing rows the batch is rolled back and run again with a savepoint per job
/// (`QueueWorker.runTransaction`). So a job may run twice before it is reported: it must
/// touch nothing but the database.
/// One COMMIT (one fsync) then covers the whole batch, and only after it succeeded are
/// the completions called, so "OK" is never sent for something not yet on disk. If the
/// COMMIT fails, every job of the batch gets that error and nothing of it is kept.
///
/// Completions run on the queue's thread, after the commit: keep them short and hand
/// real work elsewhere. Jobs must not end the transaction themselves (use
/// `Database.transaction` or `savepoint`, which nest).
public final class DatabaseQueue: StoreExecutor {
    /// Bounds how long the last job of a batch waits for the first ones.
    public static let maxBatchSize = 256

    public let path: String
    private let worker: QueueWorker

    /// Opens and migrates synchronously, so a bad path fails at start with a clear
    /// error, then keeps the connection on its own thread.
    /// `prepare` runs on the queue's thread right after opening (a size limit, say).
    public init(path: String, prepare: (@Sendable (Database) throws -> Void)? = nil) throws {
        self.path = path
        let worker = QueueWorker(maxBatchSize: Self.maxBatchSize)
        self.worker = worker
        let thread = Thread {
            clinux_set_thread_name("chorus-db")
            worker.run(path: path, prepare: prepare)
        }
        thread.name = "chorus-db"
        thread.start()
        worker.started.wait()
        if case .failure(let error) = worker.state.withLock({ $0.opened }) {
            throw error
        }
    }

    deinit { close() }

    /// Queues `job`; `completion` gets its result after the batch committed, or
    /// `.unavailable` "shutting down" at once when the queue is closed. Errors thrown by
    /// the job arrive unchanged.
    ///
    /// With `deferWake`, an idle queue does not start on it until `wakeForQueuedJobs()`:
    /// an event loop queues everything one turn read (a client's pipelined burst, several
    /// clients' lines) and then wakes the queue once, so it all shares one batch instead
    /// of the first job starting a batch of its own while the rest are still being read.
    public func submit<T: Sendable>(
        _ job: @escaping @Sendable (any Store) throws -> T,
        deferWake: Bool = false,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        let observer = worker.observer
        worker.submit(QueueJob(
            perform: { database, guarded in
                let result = Result { guarded ? try database.savepoint { try job(database) } : try job(database) }
                let error: (any Error)? = if case .failure(let error) = result { error } else { nil }
                return JobOutcome(error: error) { batchError in
                    let final = batchError.map { .failure($0) } ?? result
                    observer.jobEnded(final)
                    completion(final)
                }
            },
            fail: { error in
                observer.jobEnded(Result<T, any Error>.failure(error))
                completion(.failure(error))
            }), wakeWorker: !deferWake)
    }

    /// `submit` for a job that needs the SQLite connection itself (SQL, pragmas): tests
    /// and tools. The queue hands every job its one `Database`, so the cast holds.
    public func submitSQLite<T: Sendable>(
        _ job: @escaping @Sendable (Database) throws -> T,
        deferWake: Bool = false,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        submit({ try job($0 as! Database) }, deferWake: deferWake, completion: completion)
    }

    /// Starts an idle queue on the jobs submitted with `deferWake`.
    public func wakeForQueuedJobs() {
        worker.wakeIfQueued()
    }

    /// `handler` runs after each batch's completions have all been called (on the
    /// queue's thread), so completions can queue work for other threads and have those
    /// woken once per batch rather than once per job.
    public func setBatchEndHandler(_ handler: @escaping @Sendable () -> Void) {
        worker.batchEndHandler.withLock { $0 = QueueWorker.BatchEndHandler(handler) }
    }

    public func setObserver(_ observer: any StoreObserver) {
        worker.observer.set(observer)
    }

    /// Submits and waits: for start-up, command-line tools and tests.
    ///
    /// Called from the queue's own thread (a job or a completion) it would wait for
    /// itself forever, so that throws instead.
    public func sync<T: Sendable>(_ job: @escaping @Sendable (any Store) throws -> T) throws -> T {
        if worker.isWorkerThread {
            throw StoreError(.failed, message: "DatabaseQueue.sync called from the queue's own thread")
        }
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        submit(job) { result in
            box.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = box.result.withLock({ $0 }) else {
            throw StoreError(.failed, message: "database job finished without a result")
        }
        return try result.get()
    }

    /// `sync` for a job that needs the SQLite connection itself, as `submitSQLite`.
    public func syncSQLite<T: Sendable>(_ job: @escaping @Sendable (Database) throws -> T) throws -> T {
        try sync { try job($0 as! Database) }
    }

    /// Runs everything already queued, then closes the database and ends the thread;
    /// later submits complete with `.unavailable` "shutting down". Blocks until done, except when
    /// called from the queue's own thread, which finishes the queue right after.
    /// Safe to call more than once.
    public func close() {
        if worker.requestClose() {
            worker.waitUntilFinished()
        }
    }

    /// Jobs queued or in the batch now running.
    public var pendingJobs: Int {
        worker.state.withLock { $0.jobs.count + $0.running }
    }

    /// Batches started so far; lets tests see group commit happen.
    var batchCount: Int {
        worker.state.withLock { $0.batches }
    }

    /// Checkpoints run between batches so far.
    var checkpointCount: Int {
        worker.state.withLock { $0.checkpoints }
    }

    /// Copies of the log the background helper made while the queue was busy.
    var helperCopies: Int {
        worker.state.withLock { $0.checkpointHelper }?.passes ?? 0
    }
}

/// Carries a `sync` result from the queue's thread back to the waiting caller.
private final class ResultBox<T: Sendable>: Sendable {
    let result = Locked<Result<T, any Error>?>(nil)
}

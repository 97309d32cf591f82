import CLinux
import ChorusLocking
import ChorusStore
import Dispatch
import Foundation

/// PostgreSQL's `StoreExecutor`, modelled on SQLite's `DatabaseQueue`: one thread and one
/// writer connection per node; jobs submitted from any thread run in submission order.
///
/// Group commit: the thread takes every job queued so far (up to `maxBatchSize`) and runs
/// them in one READ COMMITTED transaction with one COMMIT; completions are called after
/// it, in submission order, on the queue's thread. A job that throws keeps nothing and
/// the others commit (`PostgresBatchRunner`: jobs run bare, and if one fails after
/// writing, the batch runs again with a SAVEPOINT per job). A deadlock or serialization
/// failure reruns the batch, so a job may run more than once: it must touch nothing but
/// the store. A lost connection fails the batch with `.unavailable` (the server's 503);
/// the next batch reconnects. A COMMIT whose answer was lost is settled by asking the
/// server what became of the transaction (`PostgresCommitSettlement`): only a known
/// commit completes with success.
public final class PostgresQueue: StoreExecutor {
    public static let maxBatchSize = 256

    /// This node's name (`--node`), also the connection's application_name.
    public let node: String
    private let worker: PostgresQueueWorker

    /// Connects, creates or upgrades the schema, and keeps the connection on its own
    /// thread. Throws a `StoreError` that says why: `.unavailable` for a database that
    /// cannot be reached or refuses the credentials (libpq's words in the message),
    /// `.failed` for a schema newer than this program or a malformed connection string.
    /// `conninfo` is a libpq URI or `key=value` string; libpq's `PG*` variables,
    /// `~/.pgpass` and `sslmode` apply.
    public init(conninfo: String, node: String) throws {
        self.node = node
        let worker = PostgresQueueWorker(conninfo: conninfo, node: node, maxBatchSize: Self.maxBatchSize)
        self.worker = worker
        let thread = Thread {
            clinux_set_thread_name("chorus-pg")
            worker.run()
        }
        thread.name = "chorus-pg"
        thread.start()
        worker.started.wait()
        if case .failure(let error) = worker.state.withLock({ $0.opened }) {
            throw error
        }
    }

    deinit { close() }

    public func submit<T: Sendable>(
        _ job: @escaping @Sendable (any Store) throws -> T,
        deferWake: Bool = false,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let observer = worker.observer
        worker.submit(PostgresJob(
            perform: { store in
                let result = Result { try job(store) }
                let error: (any Error)? = if case .failure(let error) = result { error } else { nil }
                return PostgresJobOutcome(error: error) { batchError, ids in
                    let final = batchError.map { .failure($0) } ?? (ids.isEmpty ? result : result.map { Self.resolving($0, ids) })
                    observer.jobEnded(final)
                    completion(final)
                }
            },
            fail: { error in
                observer.jobEnded(Result<T, any Error>.failure(error))
                completion(.failure(error))
            }), wakeWorker: !deferWake)
    }

    /// A result holding provisional event ids, with their final ones.
    private static func resolving<T>(_ value: T, _ ids: FinalEventIDs) -> T {
        guard let held = value as? any HoldsProvisionalEventIDs else { return value }
        return held.resolvingEventIDs(ids) as! T
    }

    /// `submit` for a job that needs the PostgreSQL store itself (its connection): tests
    /// and tools. Every job is handed the queue's one `PostgresStore`, so the cast holds.
    public func submitPostgres<T: Sendable>(
        _ job: @escaping @Sendable (PostgresStore) throws -> T,
        deferWake: Bool = false,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        submit({ try job($0 as! PostgresStore) }, deferWake: deferWake, completion: completion)
    }

    public func wakeForQueuedJobs() {
        worker.wakeIfQueued()
    }

    public func setBatchEndHandler(_ handler: @escaping @Sendable () -> Void) {
        worker.batchEndHandler.withLock { $0 = PostgresQueueWorker.BatchEndHandler(handler) }
    }

    public func setObserver(_ observer: any StoreObserver) {
        worker.observer.set(observer)
    }

    public func sync<T: Sendable>(_ job: @escaping @Sendable (any Store) throws -> T) throws -> T {
        if worker.isWorkerThread {
            throw StoreError(.failed, message: "PostgresQueue.sync called from the queue's own thread")
        }
        let box = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit(job) { result in
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = box.withLock({ $0 }) else {
            throw StoreError(.failed, message: "PostgreSQL job finished without a result")
        }
        return try result.get()
    }

    /// `sync` for a job that needs the PostgreSQL store itself, as `submitPostgres`.
    public func syncPostgres<T: Sendable>(_ job: @escaping @Sendable (PostgresStore) throws -> T) throws -> T {
        try sync { try job($0 as! PostgresStore) }
    }

    /// Runs what is queued, then closes the connection and ends the thread; later jobs
    /// fail with `.unavailable` "shutting down". Blocks until done, except on the queue's
    /// own thread. Safe to call again.
    public func close() {
        if worker.requestClose() {
            worker.waitUntilFinished()
        }
    }

    /// Jobs queued or in the batch now running.
    public var pendingJobs: Int { worker.state.withLock { $0.jobs.count + $0.running } }

    /// Batches started, and batches run again after a deadlock or a failing job that wrote.
    public var batchCount: Int { worker.state.withLock { $0.batches } }
    public var rerunCount: Int { worker.state.withLock { $0.reruns } }

    /// The writer connection's server process (0 before it connected), for the node's
    /// presence row: other nodes end it when this node's lease runs out.
    public var backendPID: Int32 { worker.state.withLock { $0.backendPID } }
}

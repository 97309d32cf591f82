/// Runs units of work against a store, one after another in submission order: the seam
/// between the server and an engine's way of committing (SQLite's is `DatabaseQueue`, one
/// thread with group commit).
///
/// What the server relies on: jobs run in the order they were submitted, each sees the
/// ones before it, and a job's `completion` is called only once its changes are durable
/// (or with the error that kept them from being so; a job that throws keeps nothing).
/// Completions are called in submission order, on the executor's own thread: keep them
/// short and hand real work elsewhere. A job may run more than once before its
/// completion, so it must touch nothing but the store.
public protocol StoreExecutor: Sendable {
    /// Queues `job`. With `deferWake`, an idle executor may wait for `wakeForQueuedJobs()`
    /// before starting, so what a loop reads in one turn commits together. After `close`
    /// the completion gets `.unavailable` ("shutting down") at once.
    func submit<T: Sendable>(
        _ job: @escaping @Sendable (any Store) throws -> T,
        deferWake: Bool,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)

    /// Starts an idle executor on the jobs submitted with `deferWake`.
    func wakeForQueuedJobs()

    /// `handler` runs on the executor's thread after each batch's completions, before the
    /// next batch's (a batch may be one job), so completions can queue work for other
    /// threads and have them woken once per batch rather than once per job.
    func setBatchEndHandler(_ handler: @escaping @Sendable () -> Void)

    /// `observer` hears, on the executor's thread, each batch's timing and outcome and each
    /// job that ended in a `StoreError` (the server's metrics and `/healthz`).
    func setObserver(_ observer: any StoreObserver)

    /// Submits and waits, for start-up, tools and tests. From the executor's own thread
    /// (inside a job or a completion) it would wait for itself, so it throws instead.
    func sync<T: Sendable>(_ job: @escaping @Sendable (any Store) throws -> T) throws -> T

    /// Runs what is queued, then closes the store; later jobs fail with `.unavailable`.
    /// Blocks until done (except on the executor's own thread); safe to call again.
    func close()
}

extension StoreExecutor {
    /// Queues `job`, starting an idle executor at once.
    public func submit<T: Sendable>(
        _ job: @escaping @Sendable (any Store) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        submit(job, deferWake: false, completion: completion)
    }
}

import ChorusLocking

/// What an executor tells whoever watches it (the server's metrics and health): each
/// batch's timing and outcome, and each job that ended in a store error. Called on the
/// executor's own thread, once per batch and once per failed job: keep it to a few
/// atomic adds.
public protocol StoreObserver: AnyObject, Sendable {
    /// A batch ended, its completions called.
    func batchFinished(_ report: StoreBatchReport)
    /// A job's completion got this error (its own, or its batch's).
    func jobFailed(_ error: StoreError)
}

/// One batch as its executor saw it.
public struct StoreBatchReport: Sendable, Equatable {
    /// Jobs in the batch.
    public let jobs: Int
    /// From the batch's first BEGIN to the end of its COMMIT (or its failure), reruns included.
    public let seconds: Double
    /// How long the COMMIT that kept the batch took; nil when no COMMIT succeeded.
    public let commitSeconds: Double?
    /// Why the whole batch failed (BEGIN or COMMIT refused, the connection lost); nil when
    /// it committed, whatever its jobs' own errors.
    public let failure: StoreError.Kind?

    public init(jobs: Int, seconds: Double, commitSeconds: Double?, failure: StoreError.Kind?) {
        self.jobs = jobs
        self.seconds = seconds
        self.commitSeconds = commitSeconds
        self.failure = failure
    }
}

/// Where an executor keeps its observer: set once by the server, read once per batch and
/// per failed job.
public final class StoreObserverSlot: Sendable {
    private let observer = Locked<(any StoreObserver)?>(nil)

    public init() {}

    public func set(_ observer: any StoreObserver) { self.observer.withLock { $0 = observer } }

    public var current: (any StoreObserver)? { observer.withLock { $0 } }

    /// Tells the observer, if there is one, of a job's failure when it is a store error.
    public func jobEnded<T>(_ result: Result<T, any Error>) {
        guard case .failure(let error) = result, let error = error as? StoreError else { return }
        current?.jobFailed(error)
    }
}

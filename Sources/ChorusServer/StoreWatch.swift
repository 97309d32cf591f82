import ChorusStore

/// What the server hears from its store's executor (`StoreObserver`), on the store's
/// thread: batch and commit times and store errors go to `Metrics`, whether the store
/// answers to `StoreHealth`.
final class StoreWatch: StoreObserver {
    private let metrics: Metrics
    private let health: StoreHealth

    init(metrics: Metrics, health: StoreHealth) {
        self.metrics = metrics
        self.health = health
    }

    func batchFinished(_ report: StoreBatchReport) {
        metrics.storeBatchSeconds.observe(report.seconds)
        if let commit = report.commitSeconds {
            metrics.storeCommitSeconds.observe(commit)
            health.heard(reachable: true)
        } else if report.failure == .unavailable {
            health.heard(reachable: false)
        }
    }

    func jobFailed(_ error: StoreError) {
        metrics.storeFailed(error.kind)
        if error.kind == .unavailable { health.heard(reachable: false) }
    }
}

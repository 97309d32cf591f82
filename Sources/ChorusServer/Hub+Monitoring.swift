import ChorusNet
import ChorusStore

/// What `/healthz` and `/metrics` answer (CONTRACT §9), asked by the web door on this
/// hub's loop.
extension Hub {
    /// How long `/healthz` waits for the store before it calls it unreachable.
    static let healthPatience: Double = 1
    /// How often it looks, meanwhile, whether the store has answered.
    private static let healthPollEvery: Double = 0.02

    /// /healthz: true while this node serves; false while its store is unreachable (its
    /// last word, from a batch, a job or the presence heartbeat, was a failure, and a probe
    /// job gets no answer within `healthPatience`) or while the node shuts down. A word
    /// from the store within `StoreHealth.fresh` answers at once; otherwise one probe job
    /// (an empty transaction) asks, shared by every loop. `completion` runs on this loop,
    /// within about a second even when the store hangs (then false).
    func isHealthy(completion: @escaping (Bool) -> Void) {
        guard !sessions.refusesNew else { return completion(false) }
        let health = state.storeHealth
        let askedAt = MonotonicTime.nanoseconds()
        if health.answeredRecently(now: askedAt) { return completion(true) }
        if health.claimProbe(now: askedAt) {
            database.submit({ _ in }) { result in
                if case .success = result { health.heard(reachable: true) } else { health.heard(reachable: false) }
                health.probeEnded()
            }
        }
        awaitStoreWord(since: askedAt, until: askedAt + UInt64(Self.healthPatience * 1e9), completion: completion)
    }

    private func awaitStoreWord(since: UInt64, until deadline: UInt64, completion: @escaping (Bool) -> Void) {
        if let reachable = state.storeHealth.word(since: since) { return completion(reachable && !sessions.refusesNew) }
        guard MonotonicTime.nanoseconds() < deadline else { return completion(false) }
        _ = loop.schedule(after: Self.healthPollEvery) { [self] in
            awaitStoreWord(since: since, until: deadline, completion: completion)
        }
    }

    /// /metrics body (text exposition format 0.0.4), rendered on the loop from atomics and
    /// the presence count: no store job, no lock per series.
    func metricsText() -> String {
        typealias Sample = MetricFamily.Sample
        let metrics = state.metrics
        let live = [
            MetricFamily("chorus_users_online", .gauge, help: "Accounts with a session open (in cluster mode, on any live node).",
                         samples: [Sample(labels: [], value: Double(state.presence.onlineUserCount))]),
            MetricFamily("chorus_store_up", .gauge,
                         help: "1 when the store's last word (a batch, a job, a heartbeat) was that it works, else 0.",
                         samples: [Sample(labels: [], value: state.storeHealth.lastReachable ? 1 : 0)]),
            MetricFamily("chorus_log_lines_dropped_total", .counter, help: "Log lines dropped because the log's queue was full.",
                         samples: [Sample(labels: [], value: Double(Log.droppedLines))]),
        ]
        let notices = state.noticeDispatcher.withLock { $0 }?.metricFamilies ?? []
        return MetricsExposition.render(metrics.families + live + notices, common: metrics.commonLabels)
    }

    /// Whether `address` (the peer's IP as text, as `Connection.peerHost` gives it) may
    /// read /metrics: `--metrics-allow`, loopback by default.
    func mayReadMetrics(from address: String) -> Bool {
        configuration.metricsAllow.contains { $0.contains(address) }
    }
}

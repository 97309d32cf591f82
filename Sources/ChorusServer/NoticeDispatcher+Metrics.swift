/// What the dispatcher and its push queue did since start, as /metrics families (sent
/// and failed notices are `Metrics`' own series).
extension NoticeDispatcher {
    var metricFamilies: [MetricFamily] {
        typealias Sample = MetricFamily.Sample
        let counts = self.counts
        let queue = pushCounters
        return [
            MetricFamily("chorus_push_subscriptions_ended_total", .counter,
                         help: "Push subscriptions ended because their push service said they are gone (404 or 410).",
                         samples: [Sample(labels: [], value: Double(counts.subscriptionsEnded))]),
            MetricFamily("chorus_push_retries_total", .counter, help: "Push attempts retried after a 429, a 5xx or a failed transfer.",
                         samples: [Sample(labels: [], value: Double(queue.retried))]),
            MetricFamily("chorus_push_refused_by_policy_total", .counter,
                         help: "Pushes not sent because their endpoint is not https or resolves to no address allowed (request-forgery guard).",
                         samples: [Sample(labels: [], value: Double(queue.refusedByPolicy))]),
            MetricFamily("chorus_push_queue_full_total", .counter, help: "Pushes the full push queue could not take (claimed again later).",
                         samples: [Sample(labels: [], value: Double(queue.droppedFull))]),
            MetricFamily("chorus_notice_claim_failures_total", .counter, help: "Claims of queued notices the store failed.",
                         samples: [Sample(labels: [], value: Double(counts.claimFailures))]),
        ]
    }
}

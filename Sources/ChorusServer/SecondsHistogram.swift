import Synchronization

/// A latency histogram in seconds for `/metrics`: one atomic count per bucket and the sum
/// in nanoseconds, observed from any thread without a lock.
final class SecondsHistogram: Sendable {
    /// Upper bounds (inclusive, as Prometheus's `le`), from half a millisecond to 5 s.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    /// Per bucket, not cumulative; the last cell is above every bound.
    private let counts = AtomicCounters(count: SecondsHistogram.bounds.count + 1)
    private let sumNanoseconds = Atomic<Int>(0)

    func observe(_ seconds: Double) {
        let index = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        counts.add(at: index)
        sumNanoseconds.add(Int(max(0, seconds) * 1e9), ordering: .relaxed)
    }

    /// The series as it stands. The count is the buckets' total, so `+Inf` and `_count`
    /// agree even while observations land.
    func series(labels: [(String, String)] = []) -> MetricFamily.Histogram {
        let bucketCounts = (0..<Self.bounds.count).map { counts[$0] }
        return MetricFamily.Histogram(labels: labels, upperBounds: Self.bounds, bucketCounts: bucketCounts,
                                      overflow: counts[Self.bounds.count],
                                      sum: Double(sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }
}

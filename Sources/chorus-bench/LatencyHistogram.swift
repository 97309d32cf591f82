/// Latencies in microseconds, kept as log-linear buckets (64 per power of two, so about
/// 1.6 % precision) instead of every sample: millions of deliveries fit in 32 KiB and two
/// histograms from different loops merge by adding counts.
struct LatencyHistogram: Sendable {
    private static let subBuckets = 64
    private static let bucketCount = 64 * 40
    private var counts = [UInt64](repeating: 0, count: LatencyHistogram.bucketCount)
    private(set) var count: UInt64 = 0
    private(set) var maxMicroseconds: UInt64 = 0
    private var sumMicroseconds: UInt64 = 0

    mutating func record(nanoseconds: UInt64) {
        let micros = nanoseconds / 1000
        counts[Self.index(of: micros)] += 1
        count += 1
        sumMicroseconds &+= micros
        if micros > maxMicroseconds { maxMicroseconds = micros }
    }

    mutating func merge(_ other: LatencyHistogram) {
        for index in 0..<counts.count { counts[index] += other.counts[index] }
        count += other.count
        sumMicroseconds &+= other.sumMicroseconds
        maxMicroseconds = max(maxMicroseconds, other.maxMicroseconds)
    }

    /// The value at or below which `fraction` (0...1) of the samples lie, in milliseconds;
    /// reported as the upper edge of its bucket, never above the true maximum.
    func percentileMilliseconds(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = UInt64((Double(count) * fraction).rounded(.up))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= max(rank, 1) {
                return Double(min(Self.upperEdge(of: index), maxMicroseconds)) / 1000
            }
        }
        return Double(maxMicroseconds) / 1000
    }

    var meanMilliseconds: Double {
        count == 0 ? 0 : Double(sumMicroseconds) / Double(count) / 1000
    }

    var maxMilliseconds: Double { Double(maxMicroseconds) / 1000 }

    /// Values below 64 µs get a bucket each; above, 64 buckets per power of two.
    private static func index(of micros: UInt64) -> Int {
        if micros < UInt64(subBuckets) { return Int(micros) }
        let exponent = 63 - micros.leadingZeroBitCount
        let top = Int(micros >> UInt64(exponent - 6))
        let index = subBuckets + (exponent - 6) * subBuckets + (top - subBuckets)
        return min(index, bucketCount - 1)
    }

    private static func upperEdge(of index: Int) -> UInt64 {
        if index < subBuckets { return UInt64(index) }
        let exponent = (index - subBuckets) / subBuckets + 6
        let top = UInt64((index - subBuckets) % subBuckets + subBuckets)
        return ((top + 1) << UInt64(exponent - 6)) - 1
    }
}

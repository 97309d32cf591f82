import ChorusNet

/// Events per second over the last minute, in sixty one-second buckets: constant memory
/// and constant work per event, for ADMIN STATS.
struct EventRate {
    private var buckets = [Int](repeating: 0, count: 60)
    private var bucketSecond = [UInt64](repeating: 0, count: 60)

    mutating func record(_ count: Int, at nanoseconds: UInt64 = MonotonicTime.nanoseconds()) {
        let second = nanoseconds / 1_000_000_000
        let slot = Int(second % 60)
        if bucketSecond[slot] != second {
            bucketSecond[slot] = second
            buckets[slot] = 0
        }
        buckets[slot] += count
    }

    /// Events in the last 60 seconds.
    func lastMinute(at nanoseconds: UInt64 = MonotonicTime.nanoseconds()) -> Int {
        let second = nanoseconds / 1_000_000_000
        return (0..<60).reduce(0) { sum, slot in
            bucketSecond[slot] + 60 > second ? sum + buckets[slot] : sum
        }
    }
}

/// Counts and times of one kind of round trip (a session set up, a write acknowledged, a
/// login) on one loop; merged across loops at the end.
struct RoundTripTally: Sendable {
    var completed = 0
    var failures = 0
    var firstFailure: String?
    var startedAt: UInt64 = .max
    var endedAt: UInt64 = 0
    var latency = LatencyHistogram()

    mutating func record(since start: UInt64, now: UInt64 = BenchClock.now()) {
        completed += 1
        if now >= start { latency.record(nanoseconds: now - start) }
        endedAt = max(endedAt, now)
    }

    mutating func failure(_ message: String) {
        failures += 1
        if firstFailure == nil { firstFailure = message }
        endedAt = max(endedAt, BenchClock.now())
    }

    mutating func merge(_ other: RoundTripTally) {
        completed += other.completed
        failures += other.failures
        firstFailure = firstFailure ?? other.firstFailure
        startedAt = min(startedAt, other.startedAt)
        endedAt = max(endedAt, other.endedAt)
        latency.merge(other.latency)
    }

    static func merged(_ tallies: [RoundTripTally]) -> RoundTripTally {
        tallies.reduce(into: RoundTripTally()) { $0.merge($1) }
    }

    /// From the first start to the last completion, in seconds.
    var seconds: Double {
        guard endedAt > startedAt, startedAt != .max else { return 0 }
        return Double(endedAt - startedAt) / 1e9
    }

    var perSecond: Double {
        seconds > 0 ? Double(completed) / seconds : 0
    }
}

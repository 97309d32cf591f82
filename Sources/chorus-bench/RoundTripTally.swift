import ChorusProtocol

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

    /// The report fields every round-trip workload prints: count, failures, duration,
    /// rate and latency, under the workload's own names for the count and the rate.
    func reportFields(counted: String, rate: String, latency: String) -> [(String, JSONValue)] {
        [
            (counted, .int(completed)),
            ("failures", .int(failures)),
            ("seconds", .number(seconds, digits: 3)),
            (rate, .number(perSecond, digits: 0)),
            (latency, self.latency.json),
        ]
    }

    /// Notes the failures, if any, as the report's problem.
    func noteFailures(in report: inout BenchReport) {
        if let firstFailure { report.problem("\(failures) failures; first: \(firstFailure)") }
    }
}

/// When to try a failed delivery again, as pure arithmetic: the queue supplies the
/// attempt number, the server's Retry-After and a random number, so tests can check
/// every delay without a clock.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    /// The wait after the first failure; it doubles with each further failure.
    public var baseDelaySeconds: Double
    /// No computed backoff waits longer.
    public var maxDelaySeconds: Double
    /// A Retry-After beyond this is cut to it: a job waiting longer holds a place in the
    /// bounded queue that fresh work needs.
    public var maxRetryAfterSeconds: Double

    public init(maxAttempts: Int = 5, baseDelaySeconds: Double = 1, maxDelaySeconds: Double = 60, maxRetryAfterSeconds: Double = 300) {
        self.maxAttempts = maxAttempts
        self.baseDelaySeconds = baseDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
    }

    /// Seconds to wait after attempt number `attempt` (1 for the first) failed in a way
    /// worth retrying, or nil when that was the last attempt allowed.
    ///
    /// With a Retry-After the server's wait is used (capped): it knows its load. Without
    /// one, exponential backoff with "equal jitter": half the step is fixed, half random
    /// (`jitter` in 0..<1), so retries from many jobs that failed together spread out but
    /// none comes back sooner than half its step.
    public func delay(afterAttempt attempt: Int, retryAfterSeconds: Double?, jitter: Double) -> Double? {
        guard attempt >= 1, attempt < maxAttempts else { return nil }
        if let retryAfterSeconds {
            return min(max(0, retryAfterSeconds), maxRetryAfterSeconds)
        }
        // 2^(attempt-1), stopped from overflowing long before it matters.
        let step = min(baseDelaySeconds * Double(1 << min(attempt - 1, 30)), maxDelaySeconds)
        let clampedJitter = min(max(jitter, 0), 1)
        return step / 2 + step / 2 * clampedJitter
    }
}

/// Waits between reconnection attempts: 1, 2, 4, ... seconds, at most 30, back to 1 after
/// a session was established again.
public struct ReconnectBackoff {
    public static let longest = 30.0
    private var next = 1.0

    public init() {}

    public mutating func nextDelay() -> Double {
        defer { next = min(next * 2, Self.longest) }
        return next
    }

    public mutating func reset() {
        next = 1
    }
}

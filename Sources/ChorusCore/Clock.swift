import Foundation

/// Where "now" comes from, so tests can set the time (DESIGN rule 2).
public protocol Clock: Sendable {
    func now() -> Date
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Date { Date() }
}

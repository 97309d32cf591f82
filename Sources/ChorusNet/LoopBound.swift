/// A value that belongs to one event loop: it may be carried across threads, but only
/// opened on its loop (checked), so loop-owned objects can ride in `@Sendable` closures.
public struct LoopBound<Value>: @unchecked Sendable {
    // Safety: `value` is only reachable through the getter, which asserts the loop thread.
    public let loop: EventLoop
    private let wrapped: Value

    public init(_ value: Value, loop: EventLoop) {
        self.loop = loop
        self.wrapped = value
    }

    public var value: Value {
        loop.assertOnLoop()
        return wrapped
    }
}

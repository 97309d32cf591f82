import ChorusNet

/// The one clock of the generator: monotonic nanoseconds, the same in every thread, so a
/// timestamp written into a message by one loop can be compared by another.
enum BenchClock {
    @inline(__always)
    static func now() -> UInt64 { MonotonicTime.nanoseconds() }
}

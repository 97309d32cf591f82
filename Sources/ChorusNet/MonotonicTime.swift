import CLinux
import Foundation

/// Nanoseconds on the monotonic clock: timers and timeouts must not jump with wall-clock changes.
public enum MonotonicTime {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

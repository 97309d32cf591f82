import Foundation

/// A value shared between threads, reached only while holding its lock.
///
/// Same shape as `Synchronization.Mutex` (`withLock`), but built on a pthread mutex
/// (through `NSLock`): on Linux the standard library's Mutex hands a contended lock over
/// inside the kernel (a priority-inheritance futex), where ThreadSanitizer cannot see the
/// hand-over and reports races that are not there. With this lock the sanitizer run of
/// the test suite stays meaningful.
public final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is only read or written between `lock.lock()` and `lock.unlock()`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

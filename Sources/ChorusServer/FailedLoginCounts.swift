import ChorusCore
import ChorusLocking
import Foundation

/// The counts behind the failed-login 429s (CONTRACT §4; the rule is ChorusCore's
/// `LoginThrottle`). `AccountService.login` calls these off the loop, around the password
/// check: `admit` before the hash, then `failed` or `succeeded` with its outcome.
///
/// Today the counts are in this process (`LocalFailedLoginCounts`). On several nodes they
/// are rows every node shares, and `admit` counts the attempt before the hash (`CLUSTER.md`,
/// Login throttle), so parallel guesses over several nodes cannot pass the limits; it may
/// then block on the database, which is why it never runs on a loop.
protocol FailedLoginCounts: Sendable {
    /// Seconds this name must wait before trying from this address, or nil when it may.
    func admit(name: String, address: String, now: Date) -> Double?
    /// The password was wrong (or the name unknown).
    func failed(name: String, address: String, now: Date)
    /// The login succeeded: both counts start again.
    func succeeded(name: String, address: String)
}

/// Failed logins counted in this process, for all of its loops.
final class LocalFailedLoginCounts: FailedLoginCounts {
    private let throttle = Locked(LoginThrottle())

    func admit(name: String, address: String, now: Date) -> Double? {
        throttle.withLock { $0.wait(name: name, address: address, now: now) }
    }

    func failed(name: String, address: String, now: Date) {
        throttle.withLock { $0.recordFailure(name: name, address: address, now: now) }
    }

    func succeeded(name: String, address: String) {
        throttle.withLock { $0.recordSuccess(name: name, address: address) }
    }
}

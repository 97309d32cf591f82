import ChorusCore
import ChorusCrypto
import ChorusLocking
import ChorusStore
import Foundation
import Synchronization

/// The counts behind the failed-login 429s (CONTRACT §4; the rule is ChorusCore's
/// `LoginThrottle`). `AccountService.login` calls these off the loop, around the password
/// check: `admit` inside the login's first store job, before the hash, then `failed` or
/// `succeeded` with its outcome.
///
/// One process counts in memory (`LocalFailedLoginCounts`). Several nodes count in rows
/// they share (`StoredFailedLoginCounts`): `admit` counts the attempt as a failure before
/// the hash, so parallel guesses over several nodes cannot pass the limits.
protocol FailedLoginCounts: Sendable {
    /// Seconds this name must wait before trying from this address, or nil when it may.
    /// Runs in a store job (`db`), before the hash.
    func admit(name: String, address: String, now: Date, db: any Store) throws -> Double?
    /// The password was wrong (or the name unknown).
    func failed(name: String, address: String, now: Date)
    /// The login succeeded: both counts start again; `then` runs once they have.
    func succeeded(name: String, address: String, then: @escaping @Sendable () -> Void)
}

/// Failed logins counted in this process, for all of its loops.
final class LocalFailedLoginCounts: FailedLoginCounts {
    private let throttle = Locked(LoginThrottle())

    func admit(name: String, address: String, now: Date, db: any Store) -> Double? {
        throttle.withLock { $0.wait(name: name, address: address, now: now) }
    }

    func failed(name: String, address: String, now: Date) {
        throttle.withLock { $0.recordFailure(name: name, address: address, now: now) }
    }

    func succeeded(name: String, address: String, then: @escaping @Sendable () -> Void) {
        throttle.withLock { $0.recordSuccess(name: name, address: address) }
        then()
    }
}

/// Failed logins counted by every node together, in the store they share
/// (`Store.admitLoginAttempt`): the attempt is already counted when `failed` comes.
final class StoredFailedLoginCounts: FailedLoginCounts {
    /// How often an admit also sweeps counts that have gone quiet.
    static let sweepInterval = 600.0

    private let database: any StoreExecutor
    private let nextSweep = Atomic<Int64>(0)

    init(database: any StoreExecutor) {
        self.database = database
    }

    func admit(name: String, address: String, now: Date, db: any Store) throws -> Double? {
        let second = Int64(now.timeIntervalSince1970)
        let due = nextSweep.load(ordering: .relaxed)
        if second >= due,
           nextSweep.compareExchange(expected: due, desired: second + Int64(Self.sweepInterval), ordering: .relaxed).exchanged {
            try db.forgetQuietLoginFailures(now: now)
        }
        return try db.admitLoginAttempt(name: Self.rowName(name), address: address, now: now)
    }

    /// The name a count is kept under. One no account can have that a row could not hold
    /// (past an index entry's size, or with a NUL, which PostgreSQL's text refuses) is
    /// counted under its digest, so it still gets 401 like any unknown name.
    static func rowName(_ name: String) -> String {
        name.utf8.count <= 64 && !name.utf8.contains(0) ? name : "#" + Digest.sha256Hex(name)
    }

    func failed(name: String, address: String, now: Date) {}

    /// The login waits for the delete, so a node asked next sees the counts gone.
    func succeeded(name: String, address: String, then: @escaping @Sendable () -> Void) {
        database.submit({ db in try db.forgetLoginFailures(name: Self.rowName(name), address: address) }) { result in
            if case .failure(let error) = result { Log.error("could not clear failed logins", ["user": name, "error": error]) }
            then()
        }
    }
}

import ChorusLocking
import ChorusStore
import Foundation
import Synchronization

/// How much of a run of store failures the log shows. While the database is away every
/// command fails alike (a 4 s PostgreSQL restart under load logged 11,000 such lines a
/// node), so a line a second, saying how many like it were left out, tells as much. The
/// count belongs to its own outage: the first success after it reports what is still
/// untold, so the next outage starts from nothing.
struct StoreFailureQuota {
    static let interval: TimeInterval = 1
    private var lastLine: Date?
    private var leftOut = 0
    /// Failures since the last success.
    private var failures = 0

    /// nil: leave this failure out. Otherwise write it, with how many were left out since
    /// the last line written.
    mutating func admit(now: Date) -> Int? {
        failures += 1
        if let lastLine, now.timeIntervalSince(lastLine) < Self.interval {
            leftOut += 1
            return nil
        }
        defer { lastLine = now; leftOut = 0 }
        return leftOut
    }

    /// A success. nil when nothing failed since the last one; otherwise the outage's
    /// failures and how many of them no line has counted yet.
    mutating func recovered() -> (failures: Int, leftOut: Int)? {
        guard failures > 0 else { return nil }
        defer { failures = 0; leftOut = 0; lastLine = nil }
        return (failures, leftOut)
    }
}

/// Store failures no client is told the words of, and the recovery after them: the store
/// writer's side of the log.
enum StoreFailureLog {
    private static let quota = Locked(StoreFailureQuota())
    /// Whether a failure came since the last success: every job's success asks, so it
    /// takes no lock while the store works.
    private static let failing = Atomic<Bool>(false)

    static func record(_ error: StoreError) {
        failing.store(true, ordering: .releasing)
        guard let leftOut = quota.withLock({ $0.admit(now: Date()) }) else { return }
        Log.error("store failed", ["cause": error.cause ?? "\(error.kind)", "error": error.message, "left_out": leftOut])
    }

    /// A job committed: after failures, one line says the store works again and counts
    /// the outage's failures the log left out.
    static func succeeded() {
        guard failing.load(ordering: .acquiring), failing.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard let (failures, leftOut) = quota.withLock({ $0.recovered() }) else { return }
        Log.info("store works again", ["failures": failures, "left_out": leftOut])
    }
}

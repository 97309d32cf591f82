import ChorusLocking
import ChorusStore
import Foundation

/// How much of a run of store failures the log shows. While the database is away every
/// command fails alike (a 4 s PostgreSQL restart under load logged 11,000 such lines a
/// node), so a line a second, saying how many like it were left out, tells as much.
struct StoreFailureQuota {
    static let interval: TimeInterval = 1
    private var lastLine: Date?
    private var leftOut = 0

    /// nil: leave this failure out. Otherwise write it, with how many were left out since
    /// the last line written.
    mutating func admit(now: Date) -> Int? {
        if let lastLine, now.timeIntervalSince(lastLine) < Self.interval {
            leftOut += 1
            return nil
        }
        defer { lastLine = now; leftOut = 0 }
        return leftOut
    }
}

enum StoreFailureLog {
    private static let quota = Locked(StoreFailureQuota())

    static func record(_ error: StoreError) {
        guard let leftOut = quota.withLock({ $0.admit(now: Date()) }) else { return }
        Log.info("store: \(error)" + (leftOut > 0 ? " (\(leftOut) more store failures left out of the log before this one)" : ""))
    }
}

import ChorusCore
import ChorusLocking
import ChorusNet
import ChorusStore
import Synchronization

/// What every event loop of the server shares: limits that count across all sessions,
/// who is online anywhere, failed logins, the event rate, and the loops' hubs.
///
/// Nothing here is on the per-session path. Sessions, their reads and writes and the
/// fan-out to them belong to one loop each and take no lock; these are touched at
/// connect, login, logout and for ADMIN figures, and by the database thread once per
/// committed job (the hub list and the event rate).
final class ServerState: Sendable {
    /// Sessions open on all loops, for `--max-connections`.
    let sessionCount = Atomic<Int>(0)
    /// Sessions per peer address, for `--max-per-ip`.
    let addressCounts = Locked<[String: Int]>([:])
    /// Failed logins, for the 429s of CONTRACT §4.
    let loginThrottle = Locked(LoginThrottle())
    /// Sessions closed by each limit, for ADMIN STATS.
    let limitCloses = Locked<[LimitClose: Int]>([:])
    /// Logged-in sessions per account on all loops: ROOM SHOW's `online`, ADMIN USERS.
    private let onlineSessions = Locked<[Int64: Int]>([:])
    private let eventRate = Locked(EventRate())
    let offlineNotices = OfflineNotices()
    /// The loops' hubs, the scheduler's first. Set once at start; emptied at shutdown so
    /// the hubs, which refer to this object, can be freed.
    private let hubList = Locked<[LoopBound<Hub>]>([])
    private let nextHub = Atomic<Int>(0)

    func setHubs(_ hubs: [LoopBound<Hub>]) {
        hubList.withLock { $0 = hubs }
    }

    var hubs: [LoopBound<Hub>] { hubList.withLock { $0 } }

    /// Where the next accepted connection goes: the loops take turns.
    func hubForNextConnection() -> LoopBound<Hub>? {
        let hubs = self.hubs
        guard !hubs.isEmpty else { return nil }
        return hubs[nextHub.add(1, ordering: .relaxed).oldValue % hubs.count]
    }

    // MARK: Online

    func loggedIn(_ user: Int64) {
        onlineSessions.withLock { $0[user, default: 0] += 1 }
    }

    func loggedOut(_ user: Int64) {
        onlineSessions.withLock { counts in
            counts[user, default: 1] -= 1
            if counts[user] == 0 { counts[user] = nil }
        }
    }

    var onlineUsers: Set<Int64> { onlineSessions.withLock { Set($0.keys) } }
    var onlineUserCount: Int { onlineSessions.withLock { $0.count } }

    // MARK: Events

    func recordEvents(_ count: Int) {
        eventRate.withLock { $0.record(count) }
    }

    var eventsLastMinute: Int { eventRate.withLock { $0.lastMinute() } }
}

/// Notices for people who are offline are kept in the database for their next login.
/// With several loops, "offline" means no loop has a session for them: each loop reports
/// whom it could not reach, and the last report keeps what nobody could deliver.
final class OfflineNotices: Sendable {
    private struct Pending {
        var reportsLeft: Int
        var unreached: Set<Pair>
    }

    struct Pair: Hashable, Sendable {
        let user: Int64
        let event: Int64
    }

    private let pending = Locked<[UInt64: Pending]>([:])
    private let nextBatch = Atomic<UInt64>(0)

    /// A new set of notices going to `loops` loops: the ticket their reports carry.
    func open(loops: Int, candidates: [Pair]) -> UInt64 {
        let ticket = nextBatch.add(1, ordering: .relaxed).oldValue
        pending.withLock { $0[ticket] = Pending(reportsLeft: loops, unreached: Set(candidates)) }
        return ticket
    }

    /// One loop's report: `reached` got the notice live. Returns what to keep for later
    /// once every loop has reported, else nil.
    func report(_ ticket: UInt64, reached: [Pair]) -> [Pair]? {
        pending.withLock { all in
            guard var entry = all[ticket] else { return nil }
            entry.unreached.subtract(reached)
            entry.reportsLeft -= 1
            if entry.reportsLeft > 0 {
                all[ticket] = entry
                return nil
            }
            all[ticket] = nil
            return entry.unreached.sorted { ($0.event, $0.user) < ($1.event, $1.user) }
        }
    }
}

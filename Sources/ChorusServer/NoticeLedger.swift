import ChorusLocking
import ChorusStore
import Synchronization

/// Which notices (overdue, reminder, behind) reached whom live, and which are held for a
/// user's next login. That a notice was fired at all is marked by the store in the
/// transaction that stores its event, so it fires once per due time; this ledger only
/// settles who still needs it.
///
/// One process (`LocalNoticeLedger`): "offline" means no loop of this process has a
/// session for the user; every loop reports whom it reached, and after the last report
/// the rest is held. Several nodes (`StoredNoticeLedger`): the notice is held for its
/// whole audience in the transaction that stores it, and each live delivery, on whichever
/// node, takes its part back, so no node waits for the others' reports.
protocol NoticeLedger: Sendable {
    /// In the transaction that stores notice `event` for `audience`.
    func stored(event: Int64, audience: [Int64], db: any Store) throws
    /// Notices just committed here, going to `loops` loops: the ticket their reports carry.
    func opened(_ notices: [UserNotice], loops: Int) -> UInt64
    /// One loop's report: these got their notice live. `ticket` is nil for notices another
    /// node stored (read from the shared log).
    func delivered(_ ticket: UInt64?, reached: [UserNotice])
}

/// One notice for one user.
struct UserNotice: Hashable, Sendable {
    let user: Int64
    let event: Int64
}

/// The ledger of one process: it tallies its loops' reports and hands what nobody
/// reached to `hold` (the store keeps it until the user logs in).
final class LocalNoticeLedger: NoticeLedger {
    private struct Tally {
        var reportsLeft: Int
        var unreached: Set<UserNotice>
    }

    private let tallies = Locked<[UInt64: Tally]>([:])
    private let nextTicket = Atomic<UInt64>(0)
    private let hold: @Sendable ([UserNotice]) -> Void

    init(hold: @escaping @Sendable ([UserNotice]) -> Void) {
        self.hold = hold
    }

    func stored(event: Int64, audience: [Int64], db: any Store) {}

    func opened(_ notices: [UserNotice], loops: Int) -> UInt64 {
        let ticket = nextTicket.add(1, ordering: .relaxed).oldValue
        tallies.withLock { $0[ticket] = Tally(reportsLeft: loops, unreached: Set(notices)) }
        return ticket
    }

    func delivered(_ ticket: UInt64?, reached: [UserNotice]) {
        guard let ticket else { return }
        let unreached = tallies.withLock { all -> [UserNotice]? in
            guard var tally = all[ticket] else { return nil }
            tally.unreached.subtract(reached)
            tally.reportsLeft -= 1
            if tally.reportsLeft > 0 {
                all[ticket] = tally
                return nil
            }
            all[ticket] = nil
            return tally.unreached.sorted { ($0.event, $0.user) < ($1.event, $1.user) }
        }
        if let unreached, !unreached.isEmpty { hold(unreached) }
    }
}

import ChorusStore

/// The notice ledger of a node that shares its store with others (ARCHITECTURE.md,
/// "Notices on several nodes"): the transaction that stores a notice also holds it for
/// every member of its audience (`pending_notices`); each loop, on any node, that delivers
/// it live forgets the rows of the users it reached. A login takes what is left with an
/// id up to where its live stream starts (`Hub.login`), so each session gets a notice
/// once, live or at login.
final class StoredNoticeLedger: NoticeLedger {
    private let database: any StoreExecutor

    init(database: any StoreExecutor) {
        self.database = database
    }

    func stored(event: Int64, audience: [Int64], db: any Store) throws {
        try db.addPendingNotices(users: audience, event: event)
    }

    /// Reports need no tally here: each one forgets its own part.
    func opened(_ notices: [UserNotice], loops: Int) -> UInt64 { 0 }

    func delivered(_ ticket: UInt64?, reached: [UserNotice]) {
        guard !reached.isEmpty else { return }
        let pairs = reached.map { (user: $0.user, event: $0.event) }
        database.submit({ db in try db.forgetPendingNotices(pairs) }) { result in
            // Kept rows come again at the next login: once more, never lost.
            if case .failure(let error) = result { Log.error("could not forget delivered notices", ["error": error]) }
        }
    }
}

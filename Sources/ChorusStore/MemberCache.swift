import CSQLite

/// Room member lists kept between commands for fan-out: every chat line needs its room's
/// members, and reading them row by row for each message was a third of the database
/// thread's work per message.
///
/// It is kept right by SQLite, not by each function that touches `members`:
/// - TEMP triggers on `members` (insert, update, delete; the cascades from deleting a room
///   or a user fire them too) call `chorus_members_changed()`, which empties the cache and
///   marks the open transaction as one that changed membership;
/// - while a transaction is so marked, reads go to the table and nothing is stored, so a
///   list that is not committed, or is rolled back later, is never kept;
/// - the commit and rollback hooks clear the mark;
/// - `PRAGMA data_version` moving means another connection committed: the cache empties.
final class MemberCache {
    private var lists: [Int64: [Int64]] = [:]
    private var changedInTransaction = false
    private var dataVersion: Int64 = -1
    /// More rooms than a server has in use at once; past it the cache starts over.
    private static let capacity = 50_000

    /// Registers the function, triggers and hooks on `database`'s connection.
    func install(on database: Database, handle: OpaquePointer) throws {
        let owner = Unmanaged.passUnretained(self).toOpaque()
        let rc = sqlite3_create_function_v2(handle, "chorus_members_changed", 0, SQLITE_UTF8, owner, { context, _, _ in
            Unmanaged<MemberCache>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue().membersChanged()
            sqlite3_result_null(context)
        }, nil, nil, nil)
        guard rc == SQLITE_OK else { throw StoreError(code: rc, message: "cannot register chorus_members_changed") }
        sqlite3_commit_hook(handle, { owner in
            owner.map { Unmanaged<MemberCache>.fromOpaque($0).takeUnretainedValue().transactionEnded() }
            return 0
        }, owner)
        sqlite3_rollback_hook(handle, { owner in
            owner.map { Unmanaged<MemberCache>.fromOpaque($0).takeUnretainedValue().transactionEnded() }
        }, owner)
        for change in ["INSERT", "UPDATE", "DELETE"] {
            try database.execute("""
                CREATE TEMP TRIGGER IF NOT EXISTS chorus_members_\(change.lowercased()) AFTER \(change) ON main.members
                BEGIN SELECT chorus_members_changed(); END
                """)
        }
    }

    /// The cached list of `room`, unless this transaction changed membership or another
    /// connection committed since it was read.
    func lookup(_ room: Int64, dataVersion current: () throws -> Int64) rethrows -> [Int64]? {
        guard !changedInTransaction else { return nil }
        let version = try current()
        if version != dataVersion {
            lists.removeAll()
            dataVersion = version
        }
        return lists[room]
    }

    /// Keeps a list just read from the table, when that is safe.
    func store(_ members: [Int64], for room: Int64) {
        guard !changedInTransaction else { return }
        if lists.count >= Self.capacity { lists.removeAll() }
        lists[room] = members
    }

    private func membersChanged() {
        changedInTransaction = true
        lists.removeAll()
    }

    private func transactionEnded() {
        changedInTransaction = false
    }
}

import CSQLite
import ChorusCore
import ChorusStore

/// Room member lists and members' access to rooms, kept between commands: every chat line
/// needs its room's members for fan-out and the sender's access (the room's name, their
/// role) for the permission check, and reading them from the tables for each message was
/// over a third of the database thread's work per message.
///
/// It is kept right by SQLite, not by each function that touches `members` or `rooms`:
/// - TEMP triggers on `members` (insert, update, delete; the cascades from deleting a room
///   or a user fire them too) and on `rooms` (update, delete) call
///   `chorus_members_changed()`, which empties the cache and marks the open transaction
///   as one that changed membership;
/// - while a transaction is so marked, reads go to the tables and nothing is stored, so
///   an answer that is not committed, or is rolled back later, is never kept;
/// - the commit and rollback hooks clear the mark;
/// - `PRAGMA data_version` moving means another connection committed: the cache empties.
final class MemberCache {
    private struct AccessKey: Hashable {
        let room: Int64
        let user: Int64
    }

    private var lists: [Int64: [Int64]] = [:]
    private var access: [AccessKey: RoomAccess] = [:]
    private var changedInTransaction = false
    private var dataVersion: Int64 = -1
    /// More entries than a server has in use at once; past it the cache starts over.
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
        let watched = [("members", "INSERT"), ("members", "UPDATE"), ("members", "DELETE"), ("rooms", "UPDATE"), ("rooms", "DELETE")]
        for (table, change) in watched {
            try database.execute("""
                CREATE TEMP TRIGGER IF NOT EXISTS chorus_\(table)_\(change.lowercased()) AFTER \(change) ON main.\(table)
                BEGIN SELECT chorus_members_changed(); END
                """)
        }
    }

    /// The cached list of `room`, unless this transaction changed membership or another
    /// connection committed since it was read.
    func lookup(_ room: Int64, dataVersion current: () throws -> Int64) rethrows -> [Int64]? {
        guard try usable(dataVersion: current) else { return nil }
        return lists[room]
    }

    /// Keeps a list just read from the table, when that is safe.
    func store(_ members: [Int64], for room: Int64) {
        guard !changedInTransaction else { return }
        if lists.count >= Self.capacity { lists.removeAll() }
        lists[room] = members
    }

    /// The cached access of `user` to `room`, on the same terms as `lookup`.
    func lookupAccess(room: Int64, user: Int64, dataVersion current: () throws -> Int64) rethrows -> RoomAccess? {
        guard try usable(dataVersion: current) else { return nil }
        return access[AccessKey(room: room, user: user)]
    }

    /// Keeps a member's access just read from the tables, when that is safe.
    func storeAccess(_ found: RoomAccess, user: Int64) {
        guard !changedInTransaction else { return }
        if access.count >= Self.capacity { access.removeAll() }
        access[AccessKey(room: found.id, user: user)] = found
    }

    private func usable(dataVersion current: () throws -> Int64) rethrows -> Bool {
        guard !changedInTransaction else { return false }
        let version = try current()
        if version != dataVersion {
            lists.removeAll()
            access.removeAll()
            dataVersion = version
        }
        return true
    }

    private func membersChanged() {
        changedInTransaction = true
        lists.removeAll()
        access.removeAll()
    }

    private func transactionEnded() {
        changedInTransaction = false
    }
}

import ChorusCore
import Foundation
import ChorusStore

/// Rooms, members and invites.
extension Database {
    public func createRoom(name: String, ownerID: Int64, created: String) throws -> Int64 {
        try prepare("INSERT INTO rooms (name, created) VALUES (?1, ?2)").run(.text(name), .text(created))
        let id = lastInsertRowID
        try addMember(room: id, user: ownerID, role: .owner, joined: created)
        return id
    }

    /// The caller's rooms, by id.
    public func rooms(ofUser user: Int64, now: Date) throws -> [RoomRecord] {
        let rows = try prepare("""
            SELECT r.id, r.name, m.role, \(Self.unreadOfMember) FROM members m JOIN rooms r ON r.id = m.room
            WHERE m.user = ?1 ORDER BY r.id
            """).rows(.integer(user)) { row in (row.int(0), row.text(1), row.text(2), row.int(3)) }
        return try rows.map { id, name, role, unread in try roomRecord(id: id, name: name, role: role, unread: unread, now: now) }
    }

    /// The room if `user` is a member of it; nil otherwise (to the caller: no such room).
    public func room(id: Int64, forUser user: Int64, now: Date) throws -> RoomRecord? {
        guard let found = try prepare("""
            SELECT r.id, r.name, m.role, \(Self.unreadOfMember) FROM members m JOIN rooms r ON r.id = m.room
            WHERE m.room = ?1 AND m.user = ?2
            """).rows([.integer(id), .integer(user)], map: { row in
                (row.int(0), row.text(1), row.text(2), row.int(3))
            }).first
        else { return nil }
        return try roomRecord(id: found.0, name: found.1, role: found.2, unread: found.3, now: now)
    }

    /// The ids of the caller's rooms with this name, case-insensitively. Compared in Swift:
    /// SQLite's lower() folds only ASCII, and "Küche" must match "KÜCHE".
    public func roomIDs(named name: String, forUser user: Int64) throws -> [Int64] {
        let wanted = name.lowercased()
        return try prepare("""
            SELECT r.id, r.name FROM members m JOIN rooms r ON r.id = m.room WHERE m.user = ?1 ORDER BY r.id
            """).rows(.integer(user)) { ($0.int(0), $0.text(1)) }
            .filter { $0.1.lowercased() == wanted }
            .map(\.0)
    }

    public func sharedRoomIDs(of user: Int64, and other: Int64) throws -> [Int64] {
        try prepare("""
            SELECT a.room FROM members a JOIN members b ON b.room = a.room AND b.user = ?2
            WHERE a.user = ?1 ORDER BY a.room
            """).rows(.integer(user), .integer(other)) { $0.int(0) }
    }

    private func roomRecord(id: Int64, name: String, role: String, unread: Int64, now: Date) throws -> RoomRecord {
        let (totals, open) = try progressTotals(room: id, since: RoomProgress.windowStart(now: now))
        return RoomRecord(id: id, name: name, role: Role(rawValue: role) ?? .member,
                          progress: RoomProgress.percent(totals), open: open, unread: Int(unread))
    }

    public func members(ofRoom room: Int64) throws -> [MemberRecord] {
        try prepare("""
            SELECT m.user, u.name, m.role FROM members m JOIN users u ON u.id = m.user
            WHERE m.room = ?1 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.name
            """).rows(.integer(room)) { row in
            MemberRecord(userID: row.int(0), name: row.text(1), role: Role(rawValue: row.text(2)) ?? .member)
        }
    }

    /// The room's members' ids, ascending. Fan-out asks for these with every event, so
    /// they come from `MemberCache` when it can vouch for them.
    public func memberIDs(ofRoom room: Int64) throws -> [Int64] {
        if let cached = try memberCache.lookup(room, dataVersion: readDataVersion) { return cached }
        let members = try prepare("SELECT user FROM members WHERE room = ?1 ORDER BY user").rows(.integer(room)) { $0.int(0) }
        memberCache.store(members, for: room)
        return members
    }

    public func role(ofUser user: Int64, inRoom room: Int64) throws -> Role? {
        try prepare("SELECT role FROM members WHERE room = ?1 AND user = ?2")
            .row(.integer(room), .integer(user)) { Role(rawValue: $0.text(0)) } ?? nil
    }

    /// `.duplicate` when already a member.
    public func addMember(room: Int64, user: Int64, role: Role, joined: String) throws {
        do {
            try prepare("INSERT INTO members (room, user, role, joined) VALUES (?1, ?2, ?3, ?4)")
                .run(.integer(room), .integer(user), .text(role.rawValue), .text(joined))
            try startUnread(room: room, user: user)
        } catch let error as StoreError where error.kind == .duplicate {
            throw StoreError.alreadyMember(message: error.message)
        }
    }

    public func removeMember(room: Int64, user: Int64) throws {
        try prepare("DELETE FROM members WHERE room = ?1 AND user = ?2").run(.integer(room), .integer(user))
        // Their chores in this room go back to the pool.
        try prepare("UPDATE tasks SET assignee = NULL WHERE room = ?1 AND assignee = ?2").run(.integer(room), .integer(user))
    }

    public func setRole(room: Int64, user: Int64, role: Role) throws {
        try prepare("UPDATE members SET role = ?3 WHERE room = ?1 AND user = ?2")
            .run(.integer(room), .integer(user), .text(role.rawValue))
    }

    public func renameRoom(_ room: Int64, to name: String) throws {
        try prepare("UPDATE rooms SET name = ?2 WHERE id = ?1").run(.integer(room), .text(name))
    }

    /// Removes the room with its members, tasks, comments, messages and invites (cascades).
    public func deleteRoom(_ room: Int64) throws {
        try prepare("DELETE FROM rooms WHERE id = ?1").run(.integer(room))
    }

    // MARK: Invites

    public func createInvite(code: String, room: Int64, createdBy: Int64, usesLeft: Int?, expires: String?, created: String) throws {
        try prepare("INSERT INTO invites (code, room, created_by, uses_left, expires, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .run(.text(code), .integer(room), .integer(createdBy), .init(usesLeft), .init(expires), .text(created))
    }

    private static let inviteColumns = """
        SELECT i.code, i.room, i.uses_left, i.expires, u.name, i.created FROM invites i JOIN users u ON u.id = i.created_by
        """

    private static func invite(_ row: Row) -> InviteRecord {
        InviteRecord(code: row.text(0), room: row.int(1), usesLeft: row.optionalInt(2).map(Int.init),
                     expires: row.optionalText(3), createdBy: row.text(4), created: row.text(5))
    }

    public func invites(ofRoom room: Int64) throws -> [InviteRecord] {
        try prepare(Self.inviteColumns + " WHERE i.room = ?1 ORDER BY i.created").rows(.integer(room), map: Self.invite)
    }

    public func invite(code: String) throws -> InviteRecord? {
        try prepare(Self.inviteColumns + " WHERE i.code = ?1").row(.text(code), map: Self.invite)
    }

    /// Counts one use; an invite with no uses left is deleted.
    public func useInvite(code: String) throws {
        try prepare("UPDATE invites SET uses_left = uses_left - 1 WHERE code = ?1 AND uses_left IS NOT NULL").run(.text(code))
        try prepare("DELETE FROM invites WHERE code = ?1 AND uses_left = 0").run(.text(code))
    }

    public func deleteInvite(code: String, room: Int64) throws -> Bool {
        try prepare("DELETE FROM invites WHERE code = ?1 AND room = ?2").run(.text(code), .integer(room))
        return changes > 0
    }
}

extension Database {
    /// The room's name and the user's role, if the user is a member: the cheap check every
    /// room command starts with (no progress figures).
    public func roomAccess(id: Int64, forUser user: Int64) throws -> RoomAccess? {
        if let cached = try memberCache.lookupAccess(room: id, user: user, dataVersion: readDataVersion) {
            return cached
        }
        let found = try prepare("""
            SELECT r.id, r.name, m.role FROM members m JOIN rooms r ON r.id = m.room WHERE m.room = ?1 AND m.user = ?2
            """).row(.integer(id), .integer(user)) { row in
            RoomAccess(id: row.int(0), name: row.text(1), role: Role(rawValue: row.text(2)) ?? .member)
        }
        if let found { memberCache.storeAccess(found, user: user) }
        return found
    }

    /// `PRAGMA data_version`: moves when another connection commits.
    private func readDataVersion() throws -> Int64 {
        try prepare("PRAGMA data_version").row { $0.int(0) } ?? 0
    }
}

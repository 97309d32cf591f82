import ChorusCore
import ChorusStore
import Foundation

/// Rooms, members and invites.
///
/// The access checks (`roomAccess`, `role`) lock the caller's member row `FOR SHARE`
/// until COMMIT: a removal or role change on another node then waits for this command,
/// or this command waits for it and sees its outcome (CLUSTER.md, "Reads, locks,
/// isolation"). An event's audience is read holding the room's row (`memberIDs`), so it
/// is the room's members as of the event's id. Reads that lead to a write lock what
/// they read (`invite(code:)` here, `task(id:)`); changes take their rows' exclusive
/// locks by updating or deleting them.
extension PostgresStore {
    public func createRoom(name: String, ownerID: Int64, created: String) throws -> Int64 {
        guard let id = try writeReturning("INSERT INTO rooms (name, created) VALUES ($1, $2) RETURNING id",
                                          [.text(name), .text(created)], map: { try $0.int(0) })
        else { throw StoreError(.failed, message: "INSERT INTO rooms returned no id") }
        try addMember(room: id, user: ownerID, role: .owner, joined: created)
        return id
    }

    public func rooms(ofUser user: Int64, now: Date) throws -> [RoomRecord] {
        let found = try rows("""
            SELECT r.id, r.name, m.role, \(Self.unreadOfMember)
              FROM members m JOIN rooms r ON r.id = m.room WHERE m.user_id = $1 ORDER BY r.id
            """, [.int(user)]) { (try $0.int(0), $0.text(1), $0.text(2), try $0.int(3)) }
        return try found.map { try roomRecord(id: $0.0, name: $0.1, role: $0.2, unread: $0.3, now: now) }
    }

    public func room(id: Int64, forUser user: Int64, now: Date) throws -> RoomRecord? {
        guard let found = try row("""
            SELECT r.id, r.name, m.role, \(Self.unreadOfMember)
              FROM members m JOIN rooms r ON r.id = m.room WHERE m.room = $1 AND m.user_id = $2
            """, [.int(id), .int(user)], map: { (try $0.int(0), $0.text(1), $0.text(2), try $0.int(3)) })
        else { return nil }
        return try roomRecord(id: found.0, name: found.1, role: found.2, unread: found.3, now: now)
    }

    /// Read once per room and user in a batch once the room's row is locked (`memberIDs`):
    /// with both rows locked, only this transaction can change what it says.
    public func roomAccess(id: Int64, forUser user: Int64) throws -> RoomAccess? {
        let roomLocked = batch.hasLocked(room: id)
        if roomLocked, let known = batch.access(ofLocked: id, user: user) { return known }
        let access = try row("""
            SELECT r.id, r.name, m.role FROM members m JOIN rooms r ON r.id = m.room WHERE m.room = $1 AND m.user_id = $2
            FOR SHARE OF m
            """, [.int(id), .int(user)]) { RoomAccess(id: try $0.int(0), name: $0.text(1), role: Role(rawValue: $0.text(2)) ?? .member) }
        if roomLocked, let access { batch.remember(access: access, of: user) }
        return access
    }

    /// Compared in Swift, as SQLite's store does: "Küche" must match "KÜCHE" whatever the
    /// database's locale.
    public func roomIDs(named name: String, forUser user: Int64) throws -> [Int64] {
        let wanted = name.lowercased()
        return try rows("""
            SELECT r.id, r.name FROM members m JOIN rooms r ON r.id = m.room WHERE m.user_id = $1 ORDER BY r.id
            """, [.int(user)]) { (try $0.int(0), $0.text(1)) }
            .filter { $0.1.lowercased() == wanted }
            .map(\.0)
    }

    public func sharedRoomIDs(of user: Int64, and other: Int64) throws -> [Int64] {
        try rows("""
            SELECT a.room FROM members a JOIN members b ON b.room = a.room AND b.user_id = $2 WHERE a.user_id = $1 ORDER BY a.room
            """, [.int(user), .int(other)]) { try $0.int(0) }
    }

    private func roomRecord(id: Int64, name: String, role: String, unread: Int64, now: Date) throws -> RoomRecord {
        let (totals, open) = try progressTotals(room: id, since: RoomProgress.windowStart(now: now))
        return RoomRecord(id: id, name: name, role: Role(rawValue: role) ?? .member, progress: RoomProgress.percent(totals), open: open,
                          unread: Int(unread))
    }

    public func members(ofRoom room: Int64) throws -> [MemberRecord] {
        try rows("""
            SELECT m.user_id, u.name, m.role FROM members m JOIN users u ON u.id = m.user_id
            WHERE m.room = $1 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.name
            """, [.int(room)]) { MemberRecord(userID: try $0.int(0), name: $0.text(1), role: Role(rawValue: $0.text(2)) ?? .member) }
    }

    /// Every event's audience, read holding the room's row `FOR SHARE` (taken by the
    /// statement before, so this one's snapshot follows any change it waited for).
    /// Membership changes lock the row exclusively first (`lockRoomForChange`), so they and
    /// this read are ordered as their commits, hence as their events' ids, which the
    /// counter hands out only at COMMIT: the audience is the room as of the event's id.
    /// The list is read once per room per batch: under the lock only this transaction
    /// can change it, and its changes drop the copy.
    public func memberIDs(ofRoom room: Int64) throws -> [Int64] {
        if let known = batch.members(ofLocked: room) { return known }
        if !batch.hasLocked(room: room) {
            _ = try rows("SELECT 1 FROM rooms WHERE id = $1 FOR SHARE", [.int(room)]) { _ in () }
            batch.locked(room: room)
        }
        let list = try rows("SELECT user_id FROM members WHERE room = $1 ORDER BY user_id", [.int(room)]) { try $0.int(0) }
        batch.remember(members: list, of: room)
        return list
    }

    /// Before a change of the room's members: waits for every uncommitted audience read.
    private func lockRoomForChange(_ room: Int64) throws {
        batch.forgetMembers(of: room)
        batch.forgetAccesses(of: room)
        _ = try rows("SELECT 1 FROM rooms WHERE id = $1 FOR NO KEY UPDATE", [.int(room)]) { _ in () }
        batch.locked(room: room)
    }

    public func role(ofUser user: Int64, inRoom room: Int64) throws -> Role? {
        try row("SELECT role FROM members WHERE room = $1 AND user_id = $2 FOR SHARE", [.int(room), .int(user)]) {
            Role(rawValue: $0.text(0))
        } ?? nil
    }

    /// An existing member is found by ON CONFLICT, so the batch transaction stays usable.
    public func addMember(room: Int64, user: Int64, role: Role, joined: String) throws {
        try lockRoomForChange(room)
        let added = try write("""
            INSERT INTO members (room, user_id, role, joined) VALUES ($1, $2, $3, $4) ON CONFLICT (room, user_id) DO NOTHING
            """, [.int(room), .int(user), .text(role.rawValue), .text(joined)])
        if added == 0 { throw StoreError.alreadyMember(message: "members: user \(user) is in room \(room)") }
        startUnread(room: room, user: user)
    }

    public func removeMember(room: Int64, user: Int64) throws {
        try lockRoomForChange(room)
        try write("DELETE FROM members WHERE room = $1 AND user_id = $2", [.int(room), .int(user)])
        try write("UPDATE tasks SET assignee = NULL WHERE room = $1 AND assignee = $2", [.int(room), .int(user)])
    }

    public func setRole(room: Int64, user: Int64, role: Role) throws {
        batch.forgetAccesses(of: room)
        try write("UPDATE members SET role = $3 WHERE room = $1 AND user_id = $2", [.int(room), .int(user), .text(role.rawValue)])
    }

    public func renameRoom(_ room: Int64, to name: String) throws {
        batch.forgetAccesses(of: room)
        try write("UPDATE rooms SET name = $2 WHERE id = $1", [.int(room), .text(name)])
    }

    public func deleteRoom(_ room: Int64) throws {
        batch.forgetMembers(of: room)
        batch.forgetAccesses(of: room)
        try write("DELETE FROM rooms WHERE id = $1", [.int(room)])
    }

    // MARK: Invites

    public func createInvite(code: String, room: Int64, createdBy: Int64, usesLeft: Int?, expires: String?, created: String) throws {
        try write("INSERT INTO invites (code, room, created_by, uses_left, expires, created) VALUES ($1, $2, $3, $4, $5, $6)",
                  [.text(code), .int(room), .int(createdBy), .init(usesLeft), .init(expires), .text(created)])
    }

    private static let inviteSelect = """
        SELECT i.code, i.room, i.uses_left, i.expires, u.name, i.created FROM invites i JOIN users u ON u.id = i.created_by
        """

    private static func invite(_ row: PostgresRow) throws -> InviteRecord {
        InviteRecord(code: row.text(0), room: try row.int(1), usesLeft: try row.int64(2).map(Int.init),
                     expires: row.string(3), createdBy: row.text(4), created: row.text(5))
    }

    public func invites(ofRoom room: Int64) throws -> [InviteRecord] {
        try rows(Self.inviteSelect + " WHERE i.room = $1 ORDER BY i.created", [.int(room)], map: Self.invite)
    }

    /// Locks the invite until COMMIT (JOIN reads it to use it): two nodes' JOINs on a
    /// one-use invite are ordered, and the second finds it gone, as a JOIN racing an
    /// UNINVITE does.
    public func invite(code: String) throws -> InviteRecord? {
        try row(Self.inviteSelect + " WHERE i.code = $1 FOR UPDATE OF i", [.text(code)], map: Self.invite)
    }

    public func useInvite(code: String) throws {
        try write("UPDATE invites SET uses_left = uses_left - 1 WHERE code = $1 AND uses_left IS NOT NULL", [.text(code)])
        try write("DELETE FROM invites WHERE code = $1 AND uses_left = 0", [.text(code)])
    }

    public func deleteInvite(code: String, room: Int64) throws -> Bool {
        try write("DELETE FROM invites WHERE code = $1 AND room = $2", [.text(code), .int(room)]) > 0
    }
}

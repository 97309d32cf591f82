import ChorusCore
import ChorusStore

/// Who may reach whom (CONTRACT §11): invitations to rooms, blocks, and removals that
/// keep someone out of a room's invite codes.
extension Database {
    public func addInvitation(room: Int64, user: Int64, invitedBy: Int64, created: String) throws -> Bool {
        try prepare("INSERT INTO invitations (room, user, invited_by, created) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
            .run(.integer(room), .integer(user), .integer(invitedBy), .text(created))
        return changes > 0
    }

    public func invitations(ofUser user: Int64) throws -> [InvitationRecord] {
        try prepare("""
            SELECT i.room, r.name, u.name, i.created FROM invitations i
            JOIN rooms r ON r.id = i.room JOIN users u ON u.id = i.invited_by
            WHERE i.user = ?1 ORDER BY i.room
            """).rows(.integer(user)) { row in
            InvitationRecord(room: row.int(0), roomName: row.text(1), invitedBy: row.text(2), created: row.text(3))
        }
    }

    public func deleteInvitation(room: Int64, user: Int64) throws -> Bool {
        try prepare("DELETE FROM invitations WHERE room = ?1 AND user = ?2").run(.integer(room), .integer(user))
        return changes > 0
    }

    public func openInvitations(from inviter: Int64) throws -> Int {
        Int(try prepare("SELECT count(*) FROM invitations WHERE invited_by = ?1").row(.integer(inviter)) { $0.int(0) } ?? 0)
    }

    public func deleteInvitations(toUser user: Int64, from inviter: Int64) throws -> Int {
        try prepare("DELETE FROM invitations WHERE user = ?1 AND invited_by = ?2").run(.integer(user), .integer(inviter))
        return changes
    }

    public func hasBlocked(_ user: Int64, _ other: Int64) throws -> Bool {
        try prepare("SELECT 1 FROM blocks WHERE user = ?1 AND blocked = ?2").row(.integer(user), .integer(other)) { _ in true } ?? false
    }

    public func block(_ other: Int64, by user: Int64, created: String) throws -> Bool {
        try prepare("INSERT INTO blocks (user, blocked, created) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
            .run(.integer(user), .integer(other), .text(created))
        return changes > 0
    }

    public func unblock(_ other: Int64, by user: Int64) throws -> Bool {
        try prepare("DELETE FROM blocks WHERE user = ?1 AND blocked = ?2").run(.integer(user), .integer(other))
        return changes > 0
    }

    public func blocks(ofUser user: Int64) throws -> [BlockRecord] {
        try prepare("""
            SELECT u.name, b.created FROM blocks b JOIN users u ON u.id = b.blocked WHERE b.user = ?1 ORDER BY u.name
            """).rows(.integer(user)) { row in BlockRecord(name: row.text(0), since: row.text(1)) }
    }

    public func recordRemoval(room: Int64, user: Int64, at: String) throws {
        try prepare("INSERT INTO removals (room, user, at) VALUES (?1, ?2, ?3) ON CONFLICT (room, user) DO UPDATE SET at = excluded.at")
            .run(.integer(room), .integer(user), .text(at))
    }

    public func forgetRemoval(room: Int64, user: Int64) throws {
        try prepare("DELETE FROM removals WHERE room = ?1 AND user = ?2").run(.integer(room), .integer(user))
    }

    public func wasRemoved(user: Int64, from room: Int64) throws -> Bool {
        try prepare("SELECT 1 FROM removals WHERE room = ?1 AND user = ?2").row(.integer(room), .integer(user)) { _ in true } ?? false
    }
}

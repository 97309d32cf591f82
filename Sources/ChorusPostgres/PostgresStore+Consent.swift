import ChorusCore
import ChorusStore

/// Who may reach whom (CONTRACT §11): invitations to rooms, blocks, and removals that
/// keep someone out of a room's invite codes. Each change is one statement whose row
/// count answers, so two nodes racing (two ACCEPTs, an ACCEPT and a DECLINE) find one winner.
extension PostgresStore {
    public func addInvitation(room: Int64, user: Int64, invitedBy: Int64, created: String) throws -> Bool {
        try write("""
            INSERT INTO invitations (room, user_id, invited_by, created) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING
            """, [.int(room), .int(user), .int(invitedBy), .text(created)]) > 0
    }

    public func invitations(ofUser user: Int64) throws -> [InvitationRecord] {
        try rows("""
            SELECT i.room, r.name, u.name, i.created FROM invitations i
            JOIN rooms r ON r.id = i.room JOIN users u ON u.id = i.invited_by
            WHERE i.user_id = $1 ORDER BY i.room
            """, [.int(user)]) { row in
            InvitationRecord(room: try row.int(0), roomName: row.text(1), invitedBy: row.text(2), created: row.text(3))
        }
    }

    public func deleteInvitation(room: Int64, user: Int64) throws -> Bool {
        try write("DELETE FROM invitations WHERE room = $1 AND user_id = $2", [.int(room), .int(user)]) > 0
    }

    public func openInvitations(from inviter: Int64) throws -> Int {
        Int(try row("SELECT count(*) FROM invitations WHERE invited_by = $1", [.int(inviter)]) { try $0.int(0) } ?? 0)
    }

    public func deleteInvitations(toUser user: Int64, from inviter: Int64) throws -> Int {
        Int(try write("DELETE FROM invitations WHERE user_id = $1 AND invited_by = $2", [.int(user), .int(inviter)]))
    }

    /// Reads under the pair's lock (`lockPair`): a ROOM ADD or DM that asks waits for a
    /// BLOCK of the same two people on another node to commit, and then sees it.
    public func hasBlocked(_ user: Int64, _ other: Int64) throws -> Bool {
        try lockPair(user, other)
        return try row("SELECT 1 FROM blocks WHERE user_id = $1 AND blocked = $2", [.int(user), .int(other)]) { _ in true } ?? false
    }

    public func block(_ other: Int64, by user: Int64, created: String) throws -> Bool {
        try lockPair(user, other)
        return try write("INSERT INTO blocks (user_id, blocked, created) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
                         [.int(user), .int(other), .text(created)]) > 0
    }

    public func unblock(_ other: Int64, by user: Int64) throws -> Bool {
        try lockPair(user, other)
        return try write("DELETE FROM blocks WHERE user_id = $1 AND blocked = $2", [.int(user), .int(other)]) > 0
    }

    /// A transaction-level advisory lock on two people, whichever way round: without it, under
    /// READ COMMITTED, a BLOCK on one node and a ROOM ADD of the same two on another could both
    /// commit, each unseen by the other, leaving an invitation the block should have ended.
    /// The key is a digest in its own namespace, apart from the schema's and sign-ups' keys.
    private func lockPair(_ one: Int64, _ other: Int64) throws {
        let (low, high) = one < other ? (one, other) : (other, one)
        _ = try rows("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [.text("chorus-pair:\(low):\(high)")]) { _ in () }
    }

    public func blocks(ofUser user: Int64) throws -> [BlockRecord] {
        try rows("""
            SELECT u.name, b.created FROM blocks b JOIN users u ON u.id = b.blocked WHERE b.user_id = $1 ORDER BY u.name
            """, [.int(user)]) { row in BlockRecord(name: row.text(0), since: row.text(1)) }
    }

    public func recordRemoval(room: Int64, user: Int64, at: String) throws {
        _ = try write("""
            INSERT INTO removals (room, user_id, at) VALUES ($1, $2, $3) ON CONFLICT (room, user_id) DO UPDATE SET at = excluded.at
            """, [.int(room), .int(user), .text(at)])
    }

    public func forgetRemoval(room: Int64, user: Int64) throws {
        _ = try write("DELETE FROM removals WHERE room = $1 AND user_id = $2", [.int(room), .int(user)])
    }

    public func wasRemoved(user: Int64, from room: Int64) throws -> Bool {
        try row("SELECT 1 FROM removals WHERE room = $1 AND user_id = $2", [.int(room), .int(user)]) { _ in true } ?? false
    }
}

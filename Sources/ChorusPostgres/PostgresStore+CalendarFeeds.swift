import ChorusCore
import ChorusStore
import Foundation

/// Calendar feeds: links kept by their secret's digest, and tasks with their revisions.
extension PostgresStore {
    /// Two LINKs of one scope racing on two nodes: the later upsert takes the scope's row
    /// over, so one link is left, never a duplicate-key failure.
    public func replaceCalendarLink(user: Int64, room: Int64?, digest: String, created: String) throws -> Bool {
        let ended = try deleteCalendarLink(user: user, room: room)
        try write("""
            INSERT INTO calendar_links (digest, user_id, room, created) VALUES ($1, $2, $3::bigint, $4)
            ON CONFLICT (user_id, coalesce(room, 0))
            DO UPDATE SET digest = EXCLUDED.digest, created = EXCLUDED.created, body_digest = NULL, body_at = NULL
            """, [.text(digest), .int(user), .init(room), .text(created)])
        return ended
    }

    public func deleteCalendarLink(user: Int64, room: Int64?) throws -> Bool {
        try write("DELETE FROM calendar_links WHERE user_id = $1 AND coalesce(room, 0) = coalesce($2::bigint, 0)",
                  [.int(user), .init(room)]) > 0
    }

    public func deleteCalendarLinks(user: Int64) throws -> Int {
        Int(try write("DELETE FROM calendar_links WHERE user_id = $1", [.int(user)]))
    }

    public func calendarLink(digest: String) throws -> CalendarLinkRecord? {
        try row("""
            SELECT l.user_id, u.name, l.room, r.name, u.disabled,
                   CASE WHEN l.room IS NULL THEN NULL
                        ELSE EXISTS (SELECT 1 FROM members m WHERE m.room = l.room AND m.user_id = l.user_id) END,
                   l.body_digest, l.body_at
              FROM calendar_links l JOIN users u ON u.id = l.user_id LEFT JOIN rooms r ON r.id = l.room
             WHERE l.digest = $1
            """, [.text(digest)]) { row in
            var body: (digest: String, at: Date)?
            if let digest = row.string(6), let at = try row.int64(7) { body = (digest, Date(timeIntervalSince1970: Double(at))) }
            return CalendarLinkRecord(owner: try row.int(0), ownerName: row.text(1), room: try row.int64(2),
                                      roomName: row.string(3), ownerDisabled: try row.flag(4),
                                      ownerIsMember: try row.bool(5), lastBody: body)
        }
    }

    /// A record racing another node's waits for its row, then finds the digest changed.
    public func recordCalendarBody(link digest: String, bodyDigest: String, at: Int64, replacing previous: String?) throws
        -> (digest: String, at: Date)? {
        try write("UPDATE calendar_links SET body_digest = $2, body_at = $3 WHERE digest = $1 AND body_digest IS NOT DISTINCT FROM $4",
                  [.text(digest), .text(bodyDigest), .int(at), previous.map { .text($0) } ?? .null])
        return try calendarLink(digest: digest)?.lastBody
    }

    public func feedTasks(in scope: TaskScope, finishedSince: String) throws -> [FeedTask] {
        let (condition, owner): (String, Int64) = switch scope {
        case .room(let room): (" WHERE t.room = $1", room)
        case .mine(let user): (PostgresTaskSQL.mine, user)
        case .personal, .sharedWith: throw StoreError(.failed, message: "a feed is of a room or of me")
        }
        let select = PostgresTaskSQL.select(condition + " AND t.due IS NOT NULL AND (NOT t.done OR t.done_at >= $2)",
                                            extra: "t.revision, t.changed_at")
        return try rows(select + PostgresTaskSQL.order, [.int(owner), .text(finishedSince)]) { row in
            FeedTask(task: try PostgresTaskSQL.record(row), revision: Int(try row.int(39)), changedAt: try row.int64(40))
        }
    }
}

import ChorusCore
import ChorusStore
import Foundation

/// Calendar feeds: links kept by their secret's digest, and tasks with their revisions.
extension Database {
    public func replaceCalendarLink(user: Int64, room: Int64?, digest: String, created: String) throws -> Bool {
        let ended = try deleteCalendarLink(user: user, room: room)
        try prepare("INSERT INTO calendar_links (digest, user, room, created) VALUES (?1, ?2, ?3, ?4)")
            .run(.text(digest), .integer(user), .init(room), .text(created))
        return ended
    }

    public func deleteCalendarLink(user: Int64, room: Int64?) throws -> Bool {
        try prepare("DELETE FROM calendar_links WHERE user = ?1 AND ifnull(room, 0) = ifnull(?2, 0)").run(.integer(user), .init(room))
        return changes > 0
    }

    public func deleteCalendarLinks(user: Int64) throws -> Int {
        try prepare("DELETE FROM calendar_links WHERE user = ?1").run(.integer(user))
        return changes
    }

    public func calendarLink(digest: String) throws -> CalendarLinkRecord? {
        try prepare("""
            SELECT l.user, u.name, l.room, r.name, u.disabled,
                   CASE WHEN l.room IS NULL THEN NULL
                        ELSE EXISTS (SELECT 1 FROM members m WHERE m.room = l.room AND m.user = l.user) END,
                   l.body_digest, l.body_at
              FROM calendar_links l JOIN users u ON u.id = l.user LEFT JOIN rooms r ON r.id = l.room
             WHERE l.digest = ?1
            """).row(.text(digest)) { row in
            let body = row.optionalText(6).flatMap { digest in
                row.optionalInt(7).map { (digest: digest, at: Date(timeIntervalSince1970: Double($0))) }
            }
            return CalendarLinkRecord(owner: row.int(0), ownerName: row.text(1), room: row.optionalInt(2),
                                      roomName: row.optionalText(3), ownerDisabled: row.bool(4),
                                      ownerIsMember: row.isNull(5) ? nil : row.bool(5), lastBody: body)
        }
    }

    public func recordCalendarBody(link digest: String, bodyDigest: String, at: Int64, replacing previous: String?) throws
        -> (digest: String, at: Date)? {
        try prepare("UPDATE calendar_links SET body_digest = ?2, body_at = ?3 WHERE digest = ?1 AND body_digest IS ?4")
            .run(.text(digest), .text(bodyDigest), .integer(at), .init(previous))
        return try calendarLink(digest: digest)?.lastBody
    }

    public func feedTasks(in scope: TaskScope, finishedSince: String) throws -> [FeedTask] {
        let (condition, owner): (String, Int64) = switch scope {
        case .room(let room): (" WHERE t.room = ?1", room)
        case .mine(let user): (TaskSQL.mine, user)
        case .personal, .sharedWith: throw StoreError(.failed, message: "a feed is of a room or of me")
        }
        let select = TaskSQL.select(condition + " AND t.due IS NOT NULL AND (t.done = 0 OR t.done_at >= ?2)",
                                    extra: "t.revision, t.changed_at")
        return try prepare(select + TaskSQL.order)
            .rows([.integer(owner), .text(finishedSince)]) { row in
                FeedTask(task: TaskSQL.record(row), revision: Int(row.int(39)), changedAt: row.optionalInt(40))
            }
    }
}

import ChorusCore
import ChorusStore

/// Unread markers (`ReadMarker`): a row per user and room with the highest event id read,
/// and the unread count the room queries carry.
extension Database {
    public func readMarker(user: Int64, room: Int64) throws -> Int64 {
        try prepare("SELECT event FROM read_markers WHERE user = ?1 AND room = ?2")
            .row(.integer(user), .integer(room)) { $0.int(0) } ?? 0
    }

    public func setReadMarker(user: Int64, room: Int64, event: Int64) throws {
        try prepare("""
            INSERT INTO read_markers (user, room, event) VALUES (?1, ?2, ?3)
            ON CONFLICT (user, room) DO UPDATE SET event = excluded.event
            """).run(.integer(user), .integer(room), .integer(event))
    }

    /// The unread count of the member row `m` (a `members` row joined as `m`), as a
    /// scalar subquery: the candidate query for `ReadMarker`. It walks the room's events
    /// after the later of the marker and the joining (`events_by_room`: room events have
    /// no user), keeping those named at `?first`, `?first+1`... (`countedEventValues`)
    /// whose actor is not the member, and stops at `ReadMarker.countLimit` of them.
    static func unreadCount(firstParameter first: Int) -> String {
        let names = ReadMarker.countedEvents.indices.map { "?\(first + $0)" }.joined(separator: ", ")
        return """
            (SELECT count(*) FROM (SELECT 1 FROM events e
              WHERE e.room = m.room AND e.user IS NULL
                AND e.id > max(
                  coalesce((SELECT k.event FROM read_markers k WHERE k.user = m.user AND k.room = m.room), 0),
                  coalesce((SELECT max(s.first_event) FROM memberships s
                             WHERE s.user = m.user AND s.room = m.room AND s.last_event IS NULL), 0))
                AND e.name IN (\(names))
                AND e.by IS NOT (SELECT u.name FROM users u WHERE u.id = m.user)
              LIMIT \(ReadMarker.countLimit)))
            """
    }

    /// The values `unreadCount` binds, in order.
    static var countedEventValues: [Statement.Value] { ReadMarker.countedEvents.map { .text($0) } }
}

import ChorusCore
import ChorusStore

/// Unread markers (`ReadMarker`), as SQLite's (`Database+ReadMarkers.swift`).
extension PostgresStore {
    public func readMarker(user: Int64, room: Int64) throws -> Int64 {
        try row("SELECT event FROM read_markers WHERE user_id = $1 AND room = $2", [.int(user), .int(room)]) {
            try $0.int(0)
        } ?? 0
    }

    /// `greatest`: two nodes moving one person's marker at once keep the higher.
    public func setReadMarker(user: Int64, room: Int64, event: Int64) throws {
        _ = try write("""
            INSERT INTO read_markers (user_id, room, event) VALUES ($1, $2, $3)
            ON CONFLICT (user_id, room) DO UPDATE SET event = greatest(read_markers.event, excluded.event)
            """, [.int(user), .int(room), .int(event)])
    }

    /// The unread count of the member row `m` as a scalar subquery: the candidate query
    /// for `ReadMarker`. It walks the room's events after the later of the marker and the
    /// joining (`events_by_room (room, id) WHERE user_id IS NULL`), keeping those whose
    /// name is in the text array at `$parameter` (`countedEventNames`) and whose actor is
    /// not the member, and stops at `ReadMarker.countLimit` of them.
    static func unreadCount(parameter: Int) -> String {
        """
        (SELECT count(*) FROM (SELECT 1 FROM events e
          WHERE e.room = m.room AND e.user_id IS NULL
            AND e.id > greatest(
              coalesce((SELECT k.event FROM read_markers k WHERE k.user_id = m.user_id AND k.room = m.room), 0),
              coalesce((SELECT max(s.first_event) FROM memberships s
                         WHERE s.user_id = m.user_id AND s.room = m.room AND s.last_event IS NULL), 0))
            AND e.name = ANY($\(parameter)::text[])
            AND e.by IS DISTINCT FROM (SELECT u.name FROM users u WHERE u.id = m.user_id)
          LIMIT \(ReadMarker.countLimit)) AS counted)
        """
    }

    /// `ReadMarker.countedEvents` as a PostgreSQL array literal (plain words: nothing to quote).
    static var countedEventNames: PostgresValue { .text("{" + ReadMarker.countedEvents.joined(separator: ",") + "}") }
}

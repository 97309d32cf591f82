import ChorusCore
import ChorusStore

/// Unread markers (`ReadMarker`), as SQLite's (`Database+ReadMarkers.swift`): the marker
/// and the member's unread count in one row, kept as events are staged and markers move.
///
/// Who waits for whom: a counted event adds to its room's rows while the command runs
/// (under the room's row `FOR SHARE`, `memberIDs`), not at the batch's end, so the rows
/// are never wanted while the event counter is held; READ locks its own row first. Two
/// nodes moving one marker take turns on that row; a READ and a message of the same room
/// take turns too, and the READ only subtracts events at or below the newest committed id.
extension PostgresStore {
    public func readMarker(user: Int64, room: Int64) throws -> Int64 {
        try row("SELECT event FROM read_markers WHERE user_id = $1 AND room = $2", [.int(user), .int(room)]) {
            try $0.int(0)
        } ?? 0
    }

    /// Moves the marker up to `event` (never down: another node may have moved it past)
    /// and takes off the count what it counted between the old start and the new one.
    public func setReadMarker(user: Int64, room: Int64, event: Int64) throws {
        _ = try write("""
            INSERT INTO read_markers (user_id, room, event, unread) VALUES ($1, $2, 0, 0) ON CONFLICT (user_id, room) DO NOTHING
            """, [.int(user), .int(room)])
        let old = try row("SELECT event FROM read_markers WHERE user_id = $1 AND room = $2 FOR UPDATE", [.int(user), .int(room)]) {
            try $0.int(0)
        } ?? 0
        guard event > old else { return }
        _ = try write("""
            UPDATE read_markers SET event = $3,
              unread = greatest(0, unread - \(Self.countedSaid(room: "$2", user: "$1", after: "$4", upTo: "$3", names: "$5")))
            WHERE user_id = $1 AND room = $2
            """, [.int(user), .int(room), .int(event), .int(old), Self.countedEventNames])
    }

    /// One more unread for every member of `room` but the one who said it (`by`), when a
    /// counted event is staged (`ReadMarker.counts`). Rows are taken in user order, so two
    /// messages of one room never wait for each other crosswise.
    func countUnread(room: Int64, by: String?) throws {
        _ = try write("""
            INSERT INTO read_markers (user_id, room, event, unread)
            SELECT m.user_id, m.room, 0, 1 FROM members m JOIN users u ON u.id = m.user_id
             WHERE m.room = $1 AND u.name IS DISTINCT FROM $2 ORDER BY m.user_id
            ON CONFLICT (user_id, room) DO UPDATE SET unread = read_markers.unread + 1
            """, [.int(room), by.map { .text($0) } ?? .null])
    }

    /// A new member starts with nothing unread: what the room said before is its history.
    func startUnread(room: Int64, user: Int64) throws {
        _ = try write("""
            INSERT INTO read_markers (user_id, room, event, unread) VALUES ($1, $2, 0, 0)
            ON CONFLICT (user_id, room) DO UPDATE SET unread = 0
            """, [.int(user), .int(room)])
    }

    /// The unread count of the member row `m`, by key.
    static let unreadOfMember = "coalesce((SELECT k.unread FROM read_markers k WHERE k.user_id = m.user_id AND k.room = m.room), 0)"

    /// A count of the counted events `room` said after the later of `after` and `user`'s
    /// joining, up to `upTo`, by anyone but `user` (SQL expressions; `names` is the text
    /// array `countedEventNames`), through `events_by_room (room, id) WHERE user_id IS NULL`.
    /// READ subtracts it for the events a move passes; step 9 counted every backlog once.
    static func countedSaid(room: String, user: String, after: String, upTo: String, names: String) -> String {
        """
        (SELECT count(*) FROM events e
          WHERE e.room = \(room) AND e.user_id IS NULL
            AND e.id > greatest(\(after), coalesce((SELECT max(s.first_event) FROM memberships s
                                                     WHERE s.user_id = \(user) AND s.room = \(room) AND s.last_event IS NULL), 0))
            AND e.id <= \(upTo)
            AND e.name = ANY(\(names)::text[])
            AND e.by IS DISTINCT FROM (SELECT u.name FROM users u WHERE u.id = \(user)))
        """
    }

    /// `ReadMarker.countedEvents` as a PostgreSQL array literal (plain words: nothing to quote).
    static var countedEventNames: PostgresValue { .text("{" + ReadMarker.countedEvents.joined(separator: ",") + "}") }

    /// `countedEventNames` written into SQL, for a migration that binds nothing.
    static var countedEventNamesLiteral: String { "'{" + ReadMarker.countedEvents.joined(separator: ",") + "}'" }
}

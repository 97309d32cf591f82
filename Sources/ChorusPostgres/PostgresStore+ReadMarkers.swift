import ChorusCore
import ChorusStore

/// Unread markers (`ReadMarker`), as SQLite's (`Database+ReadMarkers.swift`): the marker
/// and the member's unread count in one row.
///
/// Every change to those rows waits for the batch's end (`StagedRowChange`): a counted
/// event's increments, a new member's start, a READ's move. There they are written in the
/// order the jobs asked, after the batch's events and membership spans, while the batch
/// holds the event counter's lock to COMMIT. So the nodes' changes to the rows take turns
/// with the counter instead of locking rows in the middle of batches, where two batches
/// of one busy room would wait for each other's rows; and a READ after a joining in the
/// same batch finds the joining's span written.
extension PostgresStore {
    public func readMarker(user: Int64, room: Int64) throws -> Int64 {
        try row("SELECT event FROM read_markers WHERE user_id = $1 AND room = $2", [.int(user), .int(room)]) {
            try $0.int(0)
        } ?? 0
    }

    /// Stages the move; returns what it will leave, as far as this batch can tell: the
    /// count stored before the batch, less what the move passes, plus what the batch
    /// itself said (another node's batch may still change it before this one's turn).
    @discardableResult
    public func setReadMarker(user: Int64, room: Int64, event: Int64) throws -> (marker: Int64, unread: Int) {
        let (stored, unread) = try row("SELECT event, unread FROM read_markers WHERE user_id = $1 AND room = $2",
                                       [.int(user), .int(room)]) { (try $0.int(0), Int(try $0.int(1))) } ?? (0, 0)
        let reader = try row("SELECT name FROM users WHERE id = $1", [.int(user)]) { $0.text(0) } ?? ""
        guard event > stored else { return (stored, unread + batch.pendingCounted(in: room, notBy: reader)) }
        let passed = try integer("SELECT " + Self.countedSaid(room: "$1", user: "$2", after: "$3", upTo: "$4", names: "$5"),
                                 [.int(room), .int(user), .int(stored), .int(event), Self.countedEventNames])
        writes += 1
        batch.deferRow(.moveReadMarker(room: room, user: user, event: event))
        return (event, max(0, unread - Int(passed)) + batch.pendingCounted(in: room, notBy: reader))
    }

    /// A new member starts with nothing unread: what the room said before is its history.
    func startUnread(room: Int64, user: Int64) {
        writes += 1
        batch.deferRow(.startUnread(room: room, user: user))
    }

    /// `.countUnread`: one more for every member of `room` but the one who said it.
    func writeUnreadCount(room: Int64, by: String?) throws {
        _ = try connection.queryPrepared("""
            INSERT INTO read_markers (user_id, room, event, unread)
            SELECT m.user_id, m.room, 0, 1 FROM members m JOIN users u ON u.id = m.user_id
             WHERE m.room = $1 AND u.name IS DISTINCT FROM $2
            ON CONFLICT (user_id, room) DO UPDATE SET unread = read_markers.unread + 1
            """, [.int(room), by.map { .text($0) } ?? .null])
    }

    /// `.startUnread`. Only while they are still a member: the batch may have deleted the
    /// room, or seen them leave, after they joined.
    func writeUnreadStart(room: Int64, user: Int64) throws {
        _ = try connection.queryPrepared("""
            INSERT INTO read_markers (user_id, room, event, unread)
            SELECT m.user_id, m.room, 0, 0 FROM members m WHERE m.room = $2 AND m.user_id = $1
            ON CONFLICT (user_id, room) DO UPDATE SET unread = 0
            """, [.int(user), .int(room)])
    }

    /// `.moveReadMarker`: never down (another node's READ may have moved it past), and the
    /// count loses the counted events between the old start and the new marker. Only
    /// while they are still a member, as `.startUnread`.
    func writeReadMarker(room: Int64, user: Int64, event: Int64) throws {
        _ = try connection.queryPrepared("""
            INSERT INTO read_markers (user_id, room, event, unread)
            SELECT m.user_id, m.room, 0, 0 FROM members m WHERE m.room = $2 AND m.user_id = $1
            ON CONFLICT (user_id, room) DO NOTHING
            """, [.int(user), .int(room)])
        _ = try connection.queryPrepared("""
            UPDATE read_markers AS k SET event = $3,
              unread = greatest(0, k.unread - \(Self.countedSaid(room: "$2", user: "$1", after: "k.event", upTo: "$3", names: "$4")))
            WHERE k.user_id = $1 AND k.room = $2 AND k.event < $3
            """, [.int(user), .int(room), .int(event), Self.countedEventNames])
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

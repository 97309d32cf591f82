import ChorusCore
import ChorusStore

/// Unread markers (`ReadMarker`): a row per user and room with the highest event id read
/// and the member's unread count, kept as events are said and markers move, so ROOMS and
/// every login read one row per room however much is unread.
extension Database {
    public func readMarker(user: Int64, room: Int64) throws -> Int64 {
        try prepare("SELECT event FROM read_markers WHERE user = ?1 AND room = ?2")
            .row(.integer(user), .integer(room)) { $0.int(0) } ?? 0
    }

    /// Moves the marker up to `event` and takes off the count what it counted between the
    /// old start and the new one: a walk over only the events the move passes.
    @discardableResult
    public func setReadMarker(user: Int64, room: Int64, event: Int64) throws -> (marker: Int64, unread: Int) {
        let old = try readMarker(user: user, room: room)
        guard event > old else { return (old, try unread(user: user, room: room)) }
        let passed = try prepare("SELECT " + Self.countedSaid(room: "?1", user: "?2", after: "?3", upTo: "?4", firstName: 5))
            .rows([.integer(room), .integer(user), .integer(old), .integer(event)] + Self.countedEventValues) { $0.int(0) }
            .first ?? 0
        try prepare("""
            INSERT INTO read_markers (user, room, event, unread) VALUES (?1, ?2, ?3, 0)
            ON CONFLICT (user, room) DO UPDATE SET event = excluded.event, unread = max(0, unread - ?4)
            """).run(.integer(user), .integer(room), .integer(event), .integer(Int64(passed)))
        return (event, try unread(user: user, room: room))
    }

    private func unread(user: Int64, room: Int64) throws -> Int {
        Int(try prepare("SELECT unread FROM read_markers WHERE user = ?1 AND room = ?2")
            .row(.integer(user), .integer(room)) { $0.int(0) } ?? 0)
    }

    /// One more unread for every member of `room` but the one who said it (`by`), when a
    /// counted event is stored (`ReadMarker.counts`).
    func countUnread(room: Int64, by: String?) throws {
        try prepare("""
            INSERT INTO read_markers (user, room, event, unread)
            SELECT m.user, m.room, 0, 1 FROM members m JOIN users u ON u.id = m.user WHERE m.room = ?1 AND u.name IS NOT ?2
            ON CONFLICT (user, room) DO UPDATE SET unread = unread + 1
            """).run(.integer(room), .init(by))
    }

    /// A new member starts with nothing unread: what the room said before is its history.
    func startUnread(room: Int64, user: Int64) throws {
        try prepare("""
            INSERT INTO read_markers (user, room, event, unread) VALUES (?1, ?2, 0, 0)
            ON CONFLICT (user, room) DO UPDATE SET unread = 0
            """).run(.integer(user), .integer(room))
    }

    /// The unread count of the member row `m` (a `members` row joined as `m`), by key.
    static let unreadOfMember = "coalesce((SELECT k.unread FROM read_markers k WHERE k.user = m.user AND k.room = m.room), 0)"

    /// A count of the counted events `room` said after the later of `after` and `user`'s
    /// joining, up to `upTo`, by anyone but `user` (SQL expressions; the names are bound
    /// from `?firstName` on, `countedEventValues`). It seeks the room's events through
    /// `events_by_room` (room events have no user). READ subtracts it for the events a
    /// move passes; migration 15 counted every member's backlog with it once.
    static func countedSaid(room: String, user: String, after: String, upTo: String, firstName: Int) -> String {
        let names = ReadMarker.countedEvents.indices.map { "?\(firstName + $0)" }.joined(separator: ", ")
        return """
            (SELECT count(*) FROM events e
              WHERE e.room = \(room) AND e.user IS NULL
                AND e.id > max(\(after), coalesce((SELECT max(s.first_event) FROM memberships s
                                                    WHERE s.user = \(user) AND s.room = \(room) AND s.last_event IS NULL), 0))
                AND e.id <= \(upTo)
                AND e.name IN (\(names))
                AND e.by IS NOT (SELECT u.name FROM users u WHERE u.id = \(user)))
            """
    }

    /// The values `countedSaid` binds, in order.
    static var countedEventValues: [Statement.Value] { ReadMarker.countedEvents.map { .text($0) } }
}

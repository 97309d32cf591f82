import ChorusCore

/// READ R EVENT_ID: moves the caller's unread marker of a room (`ReadMarker`), and tells
/// the caller's other sessions, on every node, with a `room.read` event.
extension CommandContext {
    func read(_ reference: String, upTo requested: Int64) throws -> CommandResult {
        // An outsider gets the 404 of a room that does not exist.
        let access = try room(reference)
        let stored = try db.readMarker(user: caller.id, room: access.id)
        guard let marker = ReadMarker.moved(stored: stored, requested: requested, newest: try db.newestRoomEventID(room: access.id)) else {
            return result(readReply(try roomRecord(access), marker: stored))
        }
        let moved = try db.setReadMarker(user: caller.id, room: access.id, event: marker)
        let room = try roomRecord(access).with(unread: moved.unread)
        // A personal event (it has a user) of the room: stored, so SYNC and other nodes'
        // tails carry it to the caller's devices; never to anyone else.
        try emit("room.read", room: room.id, user: caller.id,
                 payload: [("room", .int(room.id)), ("last_read", .int(moved.marker)), ("unread", .int(room.unread))],
                 text: "read \(room.name) (#\(room.id)) up to #\(moved.marker)\(Self.unreadWords(room.unread))", audience: [caller.id])
        return result(readReply(room, marker: moved.marker))
    }

    /// `OK read Flat 2B (#3) up to #42 · 2 new`; JSON `room` (its id), `last_read`, `unread`
    /// (not `event`: an event's payload sits beside its name, `"event":"room.read"`).
    private func readReply(_ room: RoomRecord, marker: Int64) -> Reply {
        .ok("read \(room.name) (#\(room.id)) up to #\(marker)\(Self.unreadWords(room.unread))",
            [("room", .int(room.id)), ("last_read", .int(marker)), ("unread", .int(room.unread))])
    }

    private static func unreadWords(_ unread: Int) -> String {
        unread == 0 ? " · nothing new" : " · \(unread) new"
    }
}

import ChorusCore
import ChorusStore

/// The event log: every event told to anyone, stored in the transaction of the change it
/// describes, with a strictly increasing id (`SYNC` reads it back).
extension Database {
    /// Stores an event and returns its id. `room` is set for room events, `user` for
    /// events addressed to one user (a personal task, a DM, a notice).
    public func appendEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                            payload: String, text: String) throws -> Int64 {
        try prepare("INSERT INTO events (room, user, name, by, at, payload, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .run(.init(room), .init(user), .text(name), .init(by), .text(at), .text(payload), .text(text))
        let id = lastInsertRowID
        if let room, user == nil, ReadMarker.counts(eventNamed: name) { try countUnread(room: room, by: by) }
        return id
    }

    /// The audience is not kept: one process delivers from memory (`Store.appendEvent`).
    public func appendEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                            payload: String, text: String, audience: [Int64]) throws -> Int64 {
        try appendEvent(room: room, user: user, name: name, by: by, at: at, payload: payload, text: text)
    }

    /// Nothing to store: every session of a SQLite server is in this process, and the
    /// committed job's result closes them from memory (`Store.appendSessionControl`).
    public func appendSessionControl(_ control: SessionControl) throws -> Int64? { nil }

    public func lastEventID() throws -> Int64 {
        try prepare("SELECT coalesce(max(id), 0) FROM events").row { $0.int(0) } ?? 0
    }

    public func newestStoredEventID() throws -> Int64 { try lastEventID() }

    public func newestRoomEventID(room: Int64) throws -> Int64 {
        try prepare("SELECT coalesce(max(id), 0) FROM events WHERE room = ?1 AND user IS NULL").row(.integer(room)) { $0.int(0) } ?? 0
    }
}

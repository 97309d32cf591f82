import ChorusCore
import ChorusStore

/// The event log, membership spans, SYNC and the notices kept for later.
extension PostgresStore {
    static let eventSelect = "SELECT e.id, e.room, e.name, e.by, e.at, e.payload, e.text FROM events e"

    static func event(_ row: PostgresRow) throws -> StoredEvent {
        StoredEvent(id: try row.int(0), room: try row.int64(1), name: row.text(2), by: row.string(3), at: row.text(4),
                    payload: row.text(5), text: row.text(6))
    }

    /// Staged: stored with its id at the batch's end (`EventCounter.store`), its id
    /// provisional until then. The audience and this node's name go with the row, for
    /// the other nodes' tails.
    public func stageEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                           payload: String, text: String, audience: [Int64]) throws -> Int64 {
        writes += 1
        let id = batch.stage(StagedEvent(room: room, user: user, name: name, by: by, at: at, payload: payload,
                                         text: text, audience: audience))
        if let room, user == nil, ReadMarker.counts(eventNamed: name) { batch.deferRow(.countUnread(room: room, by: by)) }
        return id
    }

    /// Takes the next id like an event, so every node closes the sessions at this point.
    public func stageSessionControl(_ control: SessionControl) throws -> Int64? {
        guard !control.isEmpty else { return nil }
        writes += 1
        return batch.stage(StagedEvent(room: nil, user: nil, name: "session.close", by: nil, at: "", payload: "{}",
                                       text: control.reason, audience: control.closeUsers, control: true,
                                       closeToken: control.closeToken))
    }

    /// Stored now with its final id: the counter's lock is then held from here to COMMIT.
    /// For callers that need the id inside the job; the server stages.
    public func appendEvent(room: Int64?, user: Int64?, name: String, by: String?, at: String,
                            payload: String, text: String, audience: [Int64]) throws -> Int64 {
        let id = try stageEvent(room: room, user: user, name: name, by: by, at: at, payload: payload, text: text,
                                audience: audience)
        try converting { _ = try storeStagedEvents() }
        return batch.finalIDs.final(id)
    }

    public func appendSessionControl(_ control: SessionControl) throws -> Int64? {
        guard let id = try stageSessionControl(control) else { return nil }
        try converting { _ = try storeStagedEvents() }
        return batch.finalIDs.final(id)
    }

    /// Stores the pending events in one round trip (`EventCounter.store`), then the rows
    /// that waited for their ids; returns the transaction id, nil when nothing was
    /// pending. Throws `PostgresError`, for the batch runner to judge.
    func storeStagedEvents() throws -> String? {
        guard !batch.pending.isEmpty else {
            let due = batch.unwrittenRows()
            guard !due.isEmpty else { return nil }
            // Unread counts change only at a batch's end, holding the counter's lock as a
            // batch storing events does, so every node's changes to them take turns.
            _ = try connection.query(EventCounter.last + " FOR UPDATE")
            try writeRows(due)
            return nil
        }
        let count = Int64(batch.pending.count)
        let result = try connection.queryPrepared(EventCounter.store, EventCounter.parameters(batch.pending, node: node))
        let row = try result.firstRow()
        guard let last = try row.int64(0) else {
            throw PostgresError(sqlState: nil, kind: .failed, message: "the event counter row is missing")
        }
        try writeRows(batch.stored(first: last - count + 1))
        return row.string(1)
    }

    /// Writes the rows that waited for the batch's end, in the order they were asked for.
    private func writeRows(_ changes: ArraySlice<StagedRowChange>) throws {
        for change in changes {
            switch change {
            case .open(let room, let user, let event): try openSpan(room: room, user: user, event: event)
            case .close(let room, let user, let event): try closeSpan(room: room, user: user, event: event)
            case .holdNotice(let users, let event): try holdNotice(users: users, event: event)
            case .countUnread(let room, let by): try writeUnreadCount(room: room, by: by)
            case .startUnread(let room, let user): try writeUnreadStart(room: room, user: user)
            case .moveReadMarker(let room, let user, let event): try writeReadMarker(room: room, user: user, event: event)
            }
        }
    }

    public func lastEventID() throws -> Int64 { try integer(EventCounter.last) }

    public func newestStoredEventID() throws -> Int64 { try integer("SELECT coalesce(max(id), 0) FROM events") }

    /// Rows are visible only once committed, and ids follow commit order without gaps.
    public func newestRoomEventID(room: Int64) throws -> Int64 {
        try integer("SELECT coalesce(max(id), 0) FROM events WHERE room = $1 AND user_id IS NULL", [.int(room)])
    }

    public func setEventPeer(event: Int64, peer: Int64) throws {
        if let index = batch.pendingIndex(event) { return batch.setPeer(peer, ofPending: index) }
        try write("UPDATE events SET peer = $2 WHERE id = $1", [.int(storedID(event)), .int(peer)])
    }

    /// A span naming a staged event is written once the event has its id, just after it.
    public func openMembership(room: Int64, user: Int64, fromEvent event: Int64) throws {
        writes += 1
        guard batch.pendingIndex(event) == nil else { return batch.deferRow(.open(room: room, user: user, event: event)) }
        try converting { try openSpan(room: room, user: user, event: storedID(event)) }
    }

    public func closeMembership(room: Int64, user: Int64?, atEvent event: Int64) throws {
        writes += 1
        guard batch.pendingIndex(event) == nil else { return batch.deferRow(.close(room: room, user: user, event: event)) }
        try converting { try closeSpan(room: room, user: user, event: storedID(event)) }
    }

    private func storedID(_ event: Int64) -> Int64 { batch.storedID(event) ?? event }

    private func openSpan(room: Int64, user: Int64, event: Int64) throws {
        _ = try connection.queryPrepared("INSERT INTO memberships (room, user_id, first_event, last_event) VALUES ($1, $2, $3, NULL)",
                                         [.int(room), .int(user), .int(storedID(event))])
    }

    private func closeSpan(room: Int64, user: Int64?, event: Int64) throws {
        let event = storedID(event)
        if let user {
            _ = try connection.queryPrepared(
                "UPDATE memberships SET last_event = $3 WHERE room = $1 AND user_id = $2 AND last_event IS NULL",
                [.int(room), .int(user), .int(event)])
        } else {
            _ = try connection.queryPrepared("UPDATE memberships SET last_event = $2 WHERE room = $1 AND last_event IS NULL",
                                             [.int(room), .int(event)])
        }
    }

    /// SYNC, as SQLite's store does it (each source through its own index, merged by id),
    /// with every part bounded by the counter read first: under READ COMMITTED each
    /// statement sees a newer snapshot, and without the bound a later part could see an
    /// event an earlier part missed, and the page would skip it for good.
    public func events(forUser user: Int64, after: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        let newest = try lastEventID()
        guard newest > after else { return [] }
        var page = EventPage(limit: limit)
        let bounds: [PostgresValue] = [.int(user), .int(after), .int(newest), .int(Int64(limit))]
        page.add(try rows(Self.eventSelect + " WHERE e.user_id = $1 AND e.id > $2 AND e.id <= $3 ORDER BY e.id LIMIT $4",
                          bounds, map: Self.event))
        page.add(try rows(Self.eventSelect + " WHERE e.peer = $1 AND e.id > $2 AND e.id <= $3 ORDER BY e.id LIMIT $4",
                          bounds, map: Self.event))
        let spans = try rows("""
            SELECT room, greatest(first_event - 1, $2::bigint) AS start, coalesce(last_event, $3::bigint) FROM memberships
             WHERE user_id = $1 AND (last_event IS NULL OR last_event > $2::bigint) ORDER BY start
            """, [.int(user), .int(after), .int(newest)]) { (room: try $0.int(0), start: try $0.int(1), end: try $0.int(2)) }
        for span in spans {
            // Spans come in order of their start: once the page is full, one starting past
            // its last event has nothing to add, nor has any after it.
            if span.start >= page.cutoff { break }
            let end = min(span.end, page.cutoff, newest)
            guard span.start < end else { continue }
            page.add(try rows(Self.eventSelect
                + " WHERE e.room = $1 AND e.user_id IS NULL AND e.id > $2 AND e.id <= $3 ORDER BY e.id LIMIT $4",
                [.int(span.room), .int(span.start), .int(end), .int(Int64(limit))], map: Self.event))
        }
        return page.events
    }

    // MARK: Notices kept for later

    public func addPendingNotice(user: Int64, event: Int64) throws {
        try addPendingNotices(users: [user], event: event)
    }

    /// Taken with DELETE … RETURNING: two nodes' logins cannot both take one notice.
    public func takePendingNotices(user: Int64, upTo: Int64) throws -> [StoredEvent] {
        writes += 1
        return try rows("""
            WITH taken AS (DELETE FROM pending_notices WHERE user_id = $1 AND event <= $2 RETURNING event)
            \(Self.eventSelect) JOIN taken ON taken.event = e.id ORDER BY e.id
            """, [.int(user), .int(upTo)], map: Self.event)
    }

    /// One statement for a notice's whole audience. A notice still staged (a provisional
    /// id) is held once its event has its final id, just after the events are stored.
    public func addPendingNotices(users: [Int64], event: Int64) throws {
        guard !users.isEmpty else { return }
        guard batch.pendingIndex(event) == nil else {
            writes += 1
            return batch.deferRow(.holdNotice(users: users, event: event))
        }
        try write(Self.holdNotice, [.bigintArray(users), .int(storedID(event))])
    }

    private static let holdNotice = """
        INSERT INTO pending_notices (user_id, event) SELECT u, $2 FROM unnest($1::bigint[]) AS u ON CONFLICT DO NOTHING
        """

    private func holdNotice(users: [Int64], event: Int64) throws {
        _ = try connection.queryPrepared(Self.holdNotice, [.bigintArray(users), .int(storedID(event))])
    }

    public func forgetPendingNotices(_ notices: [(user: Int64, event: Int64)]) throws {
        guard !notices.isEmpty else { return }
        try write("""
            DELETE FROM pending_notices p USING unnest($1::bigint[], $2::bigint[]) AS g(u, e)
             WHERE p.user_id = g.u AND p.event = g.e
            """, [.bigintArray(notices.map(\.user)), .bigintArray(notices.map(\.event))])
    }
}

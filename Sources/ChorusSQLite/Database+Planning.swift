import ChorusCore
import Foundation
import ChorusStore

/// The scheduler's notices, DMs, membership spans, SYNC and STATS.
extension Database {
    // MARK: Notices

    /// Task ids whose notice of this kind is due at `now` (unix seconds) and not yet sent.
    public func dueNotices(_ kind: NoticeKind, now: Int64) throws -> [Int64] {
        let (time, sent) = kind.columns
        return try prepare("SELECT id FROM tasks WHERE done = 0 AND \(sent) = 0 AND \(time) IS NOT NULL AND \(time) <= ?1 ORDER BY \(time), id")
            .rows(.integer(now)) { $0.int(0) }
    }

    public func markNoticeSent(_ kind: NoticeKind, task: Int64) throws {
        try prepare("UPDATE tasks SET \(kind.columns.sent) = 1 WHERE id = ?1").run(.integer(task))
    }

    /// The earliest moment (unix seconds) any open task is owed a notice.
    public func nextNoticeTime() throws -> Int64? {
        try prepare("""
            SELECT min(t) FROM (
              SELECT min(due_at) AS t FROM tasks WHERE done = 0 AND overdue_sent = 0 AND due_at IS NOT NULL
              UNION ALL SELECT min(remind_at) FROM tasks WHERE done = 0 AND remind_sent = 0 AND remind_at IS NOT NULL
              UNION ALL SELECT min(behind_at) FROM tasks WHERE done = 0 AND behind_sent = 0 AND behind_at IS NOT NULL)
            """).row { $0.optionalInt(0) } ?? nil
    }

    /// Keeps a notice for a user who had no session when it fired.
    public func addPendingNotice(user: Int64, event: Int64) throws {
        try prepare("INSERT OR IGNORE INTO pending_notices (user, event) VALUES (?1, ?2)").run(.integer(user), .integer(event))
    }

    /// The notices waiting for this user up to `upTo`, oldest first, and forgets them.
    public func takePendingNotices(user: Int64, upTo: Int64) throws -> [StoredEvent] {
        let events = try prepare(EventSQL.select
            + " JOIN pending_notices p ON p.event = e.id WHERE p.user = ?1 AND p.event <= ?2 ORDER BY e.id")
            .rows(.integer(user), .integer(upTo), map: EventSQL.record)
        try prepare("DELETE FROM pending_notices WHERE user = ?1 AND event <= ?2").run(.integer(user), .integer(upTo))
        return events
    }

    // MARK: Direct messages

    public func insertDM(sender: Int64, recipient: Int64, text: String, at: String) throws -> Int64 {
        try prepare("INSERT INTO dms (sender, recipient, text, at) VALUES (?1, ?2, ?3, ?4)")
            .run(.integer(sender), .integer(recipient), .text(text), .text(at))
        return lastInsertRowID
    }

    /// Marks an event as a DM between two users, so SYNC finds it for both.
    public func setEventPeer(event: Int64, peer: Int64) throws {
        try prepare("UPDATE events SET peer = ?2 WHERE id = ?1").run(.integer(event), .integer(peer))
    }

    // MARK: Membership spans

    public func openMembership(room: Int64, user: Int64, fromEvent event: Int64) throws {
        try prepare("INSERT INTO memberships (room, user, first_event, last_event) VALUES (?1, ?2, ?3, NULL)")
            .run(.integer(room), .integer(user), .integer(event))
    }

    /// Ends the user's span (or every span of the room when `user` is nil) at `event`, inclusive.
    public func closeMembership(room: Int64, user: Int64?, atEvent event: Int64) throws {
        if let user {
            try prepare("UPDATE memberships SET last_event = ?3 WHERE room = ?1 AND user = ?2 AND last_event IS NULL")
                .run(.integer(room), .integer(user), .integer(event))
        } else {
            try prepare("UPDATE memberships SET last_event = ?2 WHERE room = ?1 AND last_event IS NULL")
                .run(.integer(room), .integer(event))
        }
    }

    // MARK: SYNC

    /// The events `user` was told about or would have been, after `after`, in id order:
    /// room events while they belonged to the room, and events addressed to them (personal
    /// tasks, notices, DMs either way). One more than `limit` tells the caller there is more.
    ///
    /// Each source is read through its own index (migration 7), at most `limit` events
    /// from each, and the sources are merged by id: a page costs about the same whatever
    /// the log holds. Walking the log by id and testing every event made one user with
    /// little to see read all of it on the database thread (a quarter of a second per
    /// `SYNC 0` at a million events) while everyone else's commands waited.
    public func events(forUser user: Int64, after: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        var page = EventPage(limit: limit)
        page.add(try prepare(EventSQL.select + " WHERE e.user = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3")
            .rows(.integer(user), .integer(after), .init(limit), map: EventSQL.record))
        page.add(try prepare(EventSQL.select + " WHERE e.peer = ?1 AND e.id > ?2 ORDER BY e.id LIMIT ?3")
            .rows(.integer(user), .integer(after), .init(limit), map: EventSQL.record))
        let spans = try prepare("""
            SELECT room, max(first_event - 1, ?2) AS start, coalesce(last_event, \(Int64.max)) FROM memberships
             WHERE user = ?1 AND (last_event IS NULL OR last_event > ?2) ORDER BY start
            """).rows(.integer(user), .integer(after)) { (room: $0.int(0), start: $0.int(1), end: $0.int(2)) }
        let roomEvents = try prepare(EventSQL.select
            + " WHERE e.room = ?1 AND e.user IS NULL AND e.id > ?2 AND e.id <= ?3 ORDER BY e.id LIMIT ?4")
        for span in spans {
            // Spans come in order of their start: once the page is full, one that starts
            // past its last event has nothing to add, nor has any after it.
            if span.start >= page.cutoff { break }
            let end = min(span.end, page.cutoff)
            guard span.start < end else { continue }
            page.add(try roomEvents.rows(.integer(span.room), .integer(span.start), .integer(end), .init(limit), map: EventSQL.record))
        }
        return page.events
    }

    // MARK: STATS

    /// Done, open, overdue and points per member of a room; "week" counts those finished at
    /// or after `since`, the week the caller was given by the domain (`RoomProgress`).
    /// Finished tasks are the room's whole history, so SQLite counts them (one indexed
    /// pass, a tenth of the time) instead of every row being read into a `TaskRecord`,
    /// which took the database thread 0.6 s for a room of 100,000. Open tasks are read,
    /// since being overdue is the calendar's judgement (`TaskTiming.isOverdue`).
    public func memberStats(room: Int64, since: String, now: Date) throws -> [MemberStats] {
        var stats = try members(ofRoom: room).map { MemberStats(name: $0.name, role: $0.role) }
        let index = Dictionary(uniqueKeysWithValues: stats.enumerated().map { ($1.name, $0) })
        let finished = try prepare("""
            SELECT u.name, count(*), sum(t.points), sum(t.done_at >= ?2), sum(CASE WHEN t.done_at >= ?2 THEN t.points ELSE 0 END)
              FROM tasks t JOIN users u ON u.id = t.done_by WHERE t.room = ?1 AND t.done = 1 GROUP BY t.done_by
            """).rows(.integer(room), .text(since)) { row in
            (name: row.text(0), done: row.int(1), points: row.int(2), doneWeek: row.int(3), pointsWeek: row.int(4))
        }
        for doer in finished {
            guard let slot = index[doer.name] else { continue }
            stats[slot].done = Int(doer.done)
            stats[slot].points = Int(doer.points)
            stats[slot].doneWeek = Int(doer.doneWeek)
            stats[slot].pointsWeek = Int(doer.pointsWeek)
        }
        let timing = TaskTiming(now: now)
        for task in try tasks(in: .room(room), done: false) {
            guard let assignee = task.assignee, let slot = index[assignee] else { continue }
            stats[slot].open += 1
            if timing.isOverdue(task) { stats[slot].overdue += 1 }
        }
        return stats
    }
}

enum EventSQL {
    static let select = "SELECT e.id, e.room, e.name, e.by, e.at, e.payload, e.text FROM events e"

    static func record(_ row: Row) -> StoredEvent {
        StoredEvent(id: row.int(0), room: row.optionalInt(1), name: row.text(2), by: row.optionalText(3), at: row.text(4),
                    payload: row.text(5), text: row.text(6))
    }
}

import ChorusCore
import ChorusStore
import Foundation

/// Tasks, their roll-ups and the room's progress totals: the same arithmetic as SQLite's
/// (integer columns, so sums stay integers and division truncates as it does there).
enum PostgresTaskSQL {
    /// Task `t`'s progress from its subtasks, weighted by points; NULL when it has none.
    static let subtaskProgress = """
        (SELECT CASE WHEN sum(s.points) > 0
                     THEN (sum((CASE WHEN s.done THEN 100 ELSE s.progress END) * s.points) + sum(s.points) / 2) / sum(s.points)
                     WHEN count(*) > 0 THEN sum(CASE WHEN s.done THEN 100 ELSE s.progress END) / count(*) END
         FROM tasks s WHERE s.parent = t.id)
        """

    static let select = """
        SELECT t.id, t.room, r.name, t.owner, t.title, t.notes, t.done, t.progress, a.name, c.name, t.creator,
               t.due, t.start, t.estimate, t.points, t.parent, t.repeat, t.rotate, t.remind, t.created, t.done_at, d.name,
               t.assignee, t.done_by, \(subtaskProgress), t.next_task, t.repeat_day, t.reopen_progress,
               t.due_at, t.remind_at, t.behind_at, t.overdue_sent, t.remind_sent, t.behind_sent
        FROM tasks t
        LEFT JOIN rooms r ON r.id = t.room
        LEFT JOIN users a ON a.id = t.assignee
        JOIN users c ON c.id = t.creator
        LEFT JOIN users d ON d.id = t.done_by
        """

    static func record(_ row: PostgresRow) throws -> TaskRecord {
        TaskRecord(
            id: try row.int(0), room: try row.int64(1), roomName: row.string(2), ownerID: try row.int64(3),
            title: row.text(4), notes: row.string(5), done: try row.flag(6), progress: Int(try row.int(7)),
            assignee: row.string(8), assigneeID: try row.int64(22), creator: row.text(9), creatorID: try row.int(10),
            due: row.string(11), start: row.string(12), estimate: try row.double(13), points: Int(try row.int(14)),
            parent: try row.int64(15), repeatRule: row.string(16), rotate: row.string(17),
            remind: row.string(18), created: row.text(19), doneAt: row.string(20), doneBy: row.string(21),
            doneByID: try row.int64(23), computedProgress: try row.int64(24).map(Int.init),
            nextOccurrence: try row.int64(25), repeatDay: try row.int64(26).map(Int.init),
            reopenProgress: try row.int64(27).map(Int.init),
            notices: TaskNotices(dueAt: try row.int64(28), remindAt: try row.int64(29), behindAt: try row.int64(30),
                                 overdueSent: try row.flag(31), remindSent: try row.flag(32), behindSent: try row.flag(33)))
    }

    /// `TaskScope.mine` for user $1: assigned to them in rooms they belong to now (or
    /// personal), plus their own unassigned personal tasks.
    static let mine = """
         WHERE ((t.assignee = $1 AND (t.room IS NULL OR EXISTS (SELECT 1 FROM members m WHERE m.room = t.room AND m.user_id = $1)))
                OR (t.owner = $1 AND t.assignee IS NULL))
        """

    /// By the due moment (a date alone is due at the end of its day), not the stored text.
    static let order = " ORDER BY t.due_at IS NULL, t.due_at, t.id"
}

extension PostgresStore {
    public func insertTask(_ draft: TaskDraft) throws -> Int64 {
        guard let id = try writeReturning("""
            INSERT INTO tasks (room, owner, title, notes, assignee, creator, due, start, estimate, points, parent,
                               repeat, rotate, remind, created)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id
            """, [.init(draft.room), .init(draft.owner), .text(draft.title), .init(draft.notes), .init(draft.assignee),
                  .int(draft.creator), .init(draft.due), .init(draft.start), .init(draft.estimate),
                  .int(Int64(draft.points)), .init(draft.parent), .init(draft.repeatRule), .init(draft.rotate),
                  .init(draft.remind), .text(draft.created)], map: { try $0.int(0) })
        else { throw StoreError(.failed, message: "INSERT INTO tasks returned no id") }
        return id
    }

    /// Locks the task's row until COMMIT: what is read here is what an edit, DONE or
    /// REOPEN writes back, so two nodes changing one task are ordered, not both applied
    /// to the same old copy.
    public func task(id: Int64) throws -> TaskRecord? {
        try row(PostgresTaskSQL.select + " WHERE t.id = $1 FOR UPDATE OF t", [.int(id)], map: PostgresTaskSQL.record)
    }

    public func subtasks(of parent: Int64) throws -> [TaskRecord] {
        try rows(PostgresTaskSQL.select + " WHERE t.parent = $1 ORDER BY t.id", [.int(parent)], map: PostgresTaskSQL.record)
    }

    /// A room's progress totals over its top-level tasks open or finished since `since`,
    /// and how many are open, summed by PostgreSQL.
    func progressTotals(room: Int64, since: String) throws -> (totals: RoomProgress.Totals, open: Int) {
        try row("""
            SELECT count(*), coalesce(sum(points), 0), coalesce(sum(progress * points), 0), coalesce(sum(progress), 0),
                   count(*) FILTER (WHERE NOT done)
              FROM (SELECT t.points, t.done,
                           CASE WHEN t.done THEN 100 ELSE coalesce(\(PostgresTaskSQL.subtaskProgress), t.progress) END AS progress
                      FROM tasks t WHERE t.room = $1 AND t.parent IS NULL AND (NOT t.done OR t.done_at >= $2)) AS top
            """, [.int(room), .text(since)]) { row in
            (RoomProgress.Totals(tasks: Int(try row.int(0)), points: Int(try row.int(1)), weightedProgress: Int(try row.int(2)),
                                 progress: Int(try row.int(3))), Int(try row.int(4)))
        } ?? (RoomProgress.Totals(), 0)
    }

    public func tasks(in scope: TaskScope, done: Bool?, finishedSince: String?) throws -> [TaskRecord] {
        let (condition, ids): (String, [Int64]) = switch scope {
        case .room(let room): (" WHERE t.room = $1", [room])
        case .mine(let user): (PostgresTaskSQL.mine, [user])
        case .personal(let user): (" WHERE t.owner = $1", [user])
        case .sharedWith(let user, let viewer): ("""
             WHERE t.assignee = $1 AND t.room IN
                   (SELECT a.room FROM members a JOIN members b ON b.room = a.room AND b.user_id = $2 WHERE a.user_id = $1)
            """, [user, viewer])
        }
        var clause = done.map { $0 ? " AND t.done" : " AND NOT t.done" } ?? ""
        var values: [PostgresValue] = ids.map { .int($0) }
        if let finishedSince {
            clause += " AND (NOT t.done OR t.done_at >= $\(values.count + 1))"
            values.append(.text(finishedSince))
        }
        return try rows(PostgresTaskSQL.select + condition + clause + PostgresTaskSQL.order, values, map: PostgresTaskSQL.record)
    }

    public func updateTask(_ ready: ReadyTask) throws {
        try write(PostgresTaskSQL.update, PostgresTaskSQL.updateParameters(ready))
    }

    /// The update and the read in one statement; the row stays locked, as `task(id:)` has it.
    /// The statement also finds the next notice moment, for the job's `nextNoticeTime`.
    public func updateTaskReadingBack(_ ready: ReadyTask) throws -> TaskRecord? {
        let read = try writeReturning(PostgresTaskSQL.updateReadingBack, PostgresTaskSQL.updateParameters(ready)) { row in
            (try PostgresTaskSQL.record(row), try row.int64(PostgresTaskSQL.nextNoticeColumn))
        }
        if let read { batch.nextNotice = .some(read.1) }
        return read?.0
    }

    public func deleteTask(id: Int64) throws {
        try write("DELETE FROM tasks WHERE id = $1", [.int(id)])
    }
}

extension PostgresTaskSQL {
    static let update = """
            UPDATE tasks SET title = $2, notes = $3, done = $4, progress = $5, reopen_progress = $22,
                             assignee = $6, due = $7, start = $8,
                             estimate = $9, points = $10, parent = $11, repeat = $12, rotate = $13, remind = $14,
                             done_at = $15, done_by = $16, next_task = $20, repeat_day = $21,
                             due_at = $17, remind_at = $18, behind_at = $19,
                             overdue_sent = $23, remind_sent = $24, behind_sent = $25
            WHERE id = $1
            """

    /// `update`, returning the row as `select` reads it (the subtasks' roll-up from
    /// the statement's snapshot: this update changes none of them), and the next notice
    /// moment: `nextNoticeTime`'s over the other tasks (their rows as they were), with
    /// this task's new moments.
    static let updateReadingBack = "WITH t AS (" + update + " RETURNING *) "
        + select.replacingOccurrences(of: "FROM tasks t", with: ", " + nextNoticeWithUpdate + " FROM t")

    /// Where `updateReadingBack` puts the next notice moment, after `record`'s columns.
    static let nextNoticeColumn = 34

    private static let nextNoticeWithUpdate = """
        least((SELECT min(due_at) FROM tasks WHERE NOT done AND NOT overdue_sent AND due_at IS NOT NULL AND id <> t.id),
              (SELECT min(remind_at) FROM tasks WHERE NOT done AND NOT remind_sent AND remind_at IS NOT NULL AND id <> t.id),
              (SELECT min(behind_at) FROM tasks WHERE NOT done AND NOT behind_sent AND behind_at IS NOT NULL AND id <> t.id),
              CASE WHEN NOT t.done AND NOT t.overdue_sent THEN t.due_at END,
              CASE WHEN NOT t.done AND NOT t.remind_sent THEN t.remind_at END,
              CASE WHEN NOT t.done AND NOT t.behind_sent THEN t.behind_at END)
        """

    static func updateParameters(_ ready: ReadyTask) -> [PostgresValue] {
        let task = ready.record
        let notices = task.notices
        return [.int(task.id), .text(task.title), .init(task.notes), .bool(task.done), .int(Int64(task.progress)),
                  .init(task.assigneeID), .init(task.due), .init(task.start), .init(task.estimate), .int(Int64(task.points)),
                  .init(task.parent), .init(task.repeatRule), .init(task.rotate), .init(task.remind),
                  .init(task.doneAt), .init(task.doneByID), .init(notices.dueAt), .init(notices.remindAt),
                  .init(notices.behindAt), .init(task.nextOccurrence), .init(task.repeatDay), .init(task.reopenProgress),
                  .bool(notices.overdueSent), .bool(notices.remindSent), .bool(notices.behindSent)]
    }
}

import ChorusCore
import ChorusStore
import Foundation

/// Tasks, with their subtasks' sums, and the room's progress sums: the same statements as
/// SQLite's, facts only (integer columns, so sums stay integers); `SubtaskProgress` and
/// `RoomProgress` decide the percentages.
enum PostgresTaskSQL {
    /// Each read task's subtasks summed (`ProgressSums`; `SubtaskProgress.percent` decides
    /// the roll-up): one grouped pass over the subtasks of the tasks `ids` (a subquery)
    /// names, joined to them as `sub`; a task without subtasks has no `sub` row. Grouped
    /// rather than a `LEFT JOIN LATERAL` per task: on a room of 4,000 tasks the lateral
    /// form took about 18 % longer than the correlated subquery it replaced, this one about
    /// 9 % less (BENCHMARKS.md, "The subtask roll-up in Swift").
    static func subtaskSums(ofTasksIn ids: String) -> String {
        """

        LEFT JOIN (SELECT s.parent, count(*) AS tasks, count(*) FILTER (WHERE s.done) AS done, sum(s.points) AS points,
                          coalesce(sum(s.points) FILTER (WHERE s.done), 0) AS done_points,
                          coalesce(sum(s.progress) FILTER (WHERE NOT s.done), 0) AS open_progress,
                          coalesce(sum(s.progress * s.points) FILTER (WHERE NOT s.done), 0) AS open_weighted
                     FROM tasks s WHERE s.parent IN (\(ids)) GROUP BY s.parent) sub ON sub.parent = t.id
        """
    }

    static let columns = """
        SELECT t.id, t.room, r.name, t.owner, t.title, t.notes, t.done, t.progress, a.name, c.name, t.creator,
               t.due, t.start, t.estimate, t.points, t.parent, t.repeat, t.rotate, t.remind, t.created, t.done_at, d.name,
               t.assignee, t.done_by, sub.tasks, t.next_task, t.repeat_day, t.reopen_progress,
               t.due_at, t.remind_at, t.behind_at, t.overdue_sent, t.remind_sent, t.behind_sent,
               sub.done, sub.points, sub.done_points, sub.open_progress, sub.open_weighted
        """

    static let joins = """

        LEFT JOIN rooms r ON r.id = t.room
        LEFT JOIN users a ON a.id = t.assignee
        JOIN users c ON c.id = t.creator
        LEFT JOIN users d ON d.id = t.done_by
        """

    /// The tasks `condition` (a `WHERE` on `t`, its parameters numbered) picks, names
    /// resolved, each with its subtasks' sums, in one statement.
    /// `extra`: more columns of `t` after the sums (39 on), for a read that needs them.
    static func select(_ condition: String, extra: String = "") -> String {
        columns + (extra.isEmpty ? "" : ", " + extra) + " FROM tasks t" + joins
            + subtaskSums(ofTasksIn: "SELECT t.id FROM tasks t" + condition) + condition
    }

    static func record(_ row: PostgresRow) throws -> TaskRecord {
        TaskRecord(
            id: try row.int(0), room: try row.int64(1), roomName: row.string(2), ownerID: try row.int64(3),
            title: row.text(4), notes: row.string(5), done: try row.flag(6), progress: Int(try row.int(7)),
            assignee: row.string(8), assigneeID: try row.int64(22), creator: row.text(9), creatorID: try row.int(10),
            due: row.string(11), start: row.string(12), estimate: try row.double(13), points: Int(try row.int(14)),
            parent: try row.int64(15), repeatRule: row.string(16), rotate: row.string(17),
            remind: row.string(18), created: row.text(19), doneAt: row.string(20), doneBy: row.string(21),
            doneByID: try row.int64(23), computedProgress: SubtaskProgress.percent(try subtaskSums(row)),
            nextOccurrence: try row.int64(25), repeatDay: try row.int64(26).map(Int.init),
            reopenProgress: try row.int64(27).map(Int.init),
            notices: TaskNotices(dueAt: try row.int64(28), remindAt: try row.int64(29), behindAt: try row.int64(30),
                                 overdueSent: try row.flag(31), remindSent: try row.flag(32), behindSent: try row.flag(33)))
    }

    /// Columns 24 and 34-38: the subtasks' sums, all NULL for a task without subtasks.
    static func subtaskSums(_ row: PostgresRow) throws -> ProgressSums {
        ProgressSums(tasks: Int(try row.int64(24) ?? 0), done: Int(try row.int64(34) ?? 0), points: Int(try row.int64(35) ?? 0),
                     donePoints: Int(try row.int64(36) ?? 0), openProgress: Int(try row.int64(37) ?? 0),
                     openWeightedProgress: Int(try row.int64(38) ?? 0))
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
        try row(PostgresTaskSQL.select(" WHERE t.id = $1") + " FOR UPDATE OF t", [.int(id)], map: PostgresTaskSQL.record)
    }

    public func subtasks(of parent: Int64) throws -> [TaskRecord] {
        try rows(PostgresTaskSQL.select(" WHERE t.parent = $1") + " ORDER BY t.id", [.int(parent)], map: PostgresTaskSQL.record)
    }

    /// A room's progress totals over its top-level tasks open or finished since `since`,
    /// and how many are open: PostgreSQL sums, `RoomProgress.totals` decides. One row for
    /// the tasks without subtasks, summed, and one per parent with its subtasks' sums (the
    /// subtasks of the counted tasks grouped once, by `tasks_by_parent`; `GROUP BY
    /// sub.parent`: NULL for the first, each parent's id for the others).
    func progressTotals(room: Int64, since: String) throws -> (totals: RoomProgress.Totals, open: Int) {
        let counted = " WHERE t.room = $1 AND t.parent IS NULL AND (NOT t.done OR t.done_at >= $2)"
        let rows = try rows("""
            SELECT sub.parent IS NOT NULL, count(*), count(*) FILTER (WHERE t.done), sum(t.points),
                   coalesce(sum(t.points) FILTER (WHERE t.done), 0), coalesce(sum(t.progress) FILTER (WHERE NOT t.done), 0),
                   coalesce(sum(t.progress * t.points) FILTER (WHERE NOT t.done), 0), max(t.progress),
                   max(sub.tasks), max(sub.done), max(sub.points), max(sub.done_points), max(sub.open_progress), max(sub.open_weighted)
              FROM tasks t
            \(PostgresTaskSQL.subtaskSums(ofTasksIn: "SELECT t.id FROM tasks t" + counted))
            \(counted) GROUP BY sub.parent
            """, [.int(room), .text(since)]) { row in
            RoomProgress.BarRow(isParent: try row.flag(0),
                                own: ProgressSums(tasks: Int(try row.int(1)), done: Int(try row.int(2)), points: Int(try row.int(3)),
                                                   donePoints: Int(try row.int(4)), openProgress: Int(try row.int(5)), openWeightedProgress: Int(try row.int(6))),
                                progress: Int(try row.int(7)),
                                subtasks: ProgressSums(tasks: Int(try row.int64(8) ?? 0), done: Int(try row.int64(9) ?? 0), points: Int(try row.int64(10) ?? 0),
                                                   donePoints: Int(try row.int64(11) ?? 0), openProgress: Int(try row.int64(12) ?? 0),
                                                   openWeightedProgress: Int(try row.int64(13) ?? 0)))
        }
        return RoomProgress.totals(rows)
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
        return try rows(PostgresTaskSQL.select(condition + clause) + PostgresTaskSQL.order, values, map: PostgresTaskSQL.record)
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

    /// `update`, returning the row as `select` reads it (the subtasks' sums from
    /// the statement's snapshot: this update changes none of them), and the next notice
    /// moment: `nextNoticeTime`'s over the other tasks (their rows as they were), with
    /// this task's new moments.
    static let updateReadingBack = "WITH t AS (" + update + " RETURNING *) " + columns + ", " + nextNoticeWithUpdate
        + " FROM t" + joins + subtaskSums(ofTasksIn: "SELECT id FROM t")

    /// Where `updateReadingBack` puts the next notice moment, after `record`'s columns.
    static let nextNoticeColumn = 39

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

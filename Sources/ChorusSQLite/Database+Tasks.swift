import ChorusCore
import Foundation
import ChorusStore

enum TaskSQL {
    /// Each read task's subtasks summed (`ProgressSums`; `SubtaskProgress.percent` decides
    /// the roll-up): one grouped pass, by `tasks_by_parent`, over the subtasks of the
    /// tasks `condition` (a `WHERE` on `t`, its parameters numbered) picks, joined to them
    /// as `sub`. A task without subtasks has no `sub` row.
    static func subtaskSums(of condition: String) -> String {
        """

        LEFT JOIN (SELECT s.parent, count(*) AS tasks, sum(s.done) AS done, sum(s.points) AS points,
                          coalesce(sum(s.points) FILTER (WHERE s.done), 0) AS done_points,
                          coalesce(sum(s.progress) FILTER (WHERE NOT s.done), 0) AS open_progress,
                          coalesce(sum(s.progress * s.points) FILTER (WHERE NOT s.done), 0) AS open_weighted
                     FROM tasks s WHERE s.parent IN (SELECT t.id FROM tasks t\(condition)) GROUP BY s.parent) sub ON sub.parent = t.id
        """
    }

    /// The tasks `condition` picks (a `WHERE` on `t`), names resolved, each with its
    /// subtasks' sums, in one statement.
    /// `extra`: more columns of `t` after the sums (39 on), for a read that needs them.
    static func select(_ condition: String, extra: String = "") -> String {
        """
        SELECT t.id, t.room, r.name, t.owner, t.title, t.notes, t.done, t.progress, a.name, c.name, t.creator,
               t.due, t.start, t.estimate, t.points, t.parent, t.repeat, t.rotate, t.remind, t.created, t.done_at, d.name,
               t.assignee, t.done_by, sub.tasks, t.next_task, t.repeat_day, t.reopen_progress,
               t.due_at, t.remind_at, t.behind_at, t.overdue_sent, t.remind_sent, t.behind_sent,
               sub.done, sub.points, sub.done_points, sub.open_progress, sub.open_weighted\(extra.isEmpty ? "" : ", " + extra)
        FROM tasks t
        LEFT JOIN rooms r ON r.id = t.room
        LEFT JOIN users a ON a.id = t.assignee
        JOIN users c ON c.id = t.creator
        LEFT JOIN users d ON d.id = t.done_by
        """ + subtaskSums(of: condition) + condition
    }

    static func record(_ row: Row) -> TaskRecord {
        TaskRecord(
            id: row.int(0), room: row.optionalInt(1), roomName: row.optionalText(2), ownerID: row.optionalInt(3),
            title: row.text(4), notes: row.optionalText(5), done: row.bool(6), progress: Int(row.int(7)),
            assignee: row.optionalText(8), assigneeID: row.optionalInt(22), creator: row.text(9), creatorID: row.int(10), due: row.optionalText(11),
            start: row.optionalText(12), estimate: row.isNull(13) ? nil : row.double(13), points: Int(row.int(14)),
            parent: row.optionalInt(15), repeatRule: row.optionalText(16), rotate: row.optionalText(17),
            remind: row.optionalText(18), created: row.text(19), doneAt: row.optionalText(20), doneBy: row.optionalText(21),
            doneByID: row.optionalInt(23), computedProgress: SubtaskProgress.percent(subtaskSums(row)),
            nextOccurrence: row.optionalInt(25), repeatDay: row.optionalInt(26).map(Int.init),
            reopenProgress: row.optionalInt(27).map(Int.init),
            notices: TaskNotices(dueAt: row.optionalInt(28), remindAt: row.optionalInt(29), behindAt: row.optionalInt(30),
                                 overdueSent: row.bool(31), remindSent: row.bool(32), behindSent: row.bool(33)))
    }

    /// Columns 24 and 34-38: the subtasks' sums, all NULL for a task without subtasks.
    static func subtaskSums(_ row: Row) -> ProgressSums {
        ProgressSums(tasks: Int(row.optionalInt(24) ?? 0), done: Int(row.optionalInt(34) ?? 0),
                     points: Int(row.optionalInt(35) ?? 0), donePoints: Int(row.optionalInt(36) ?? 0),
                     openProgress: Int(row.optionalInt(37) ?? 0), openWeightedProgress: Int(row.optionalInt(38) ?? 0))
    }

    /// `TaskScope.mine` for user ?1: assigned to them in rooms they belong to now (or
    /// personal), plus their own unassigned personal tasks.
    static let mine = """
         WHERE ((t.assignee = ?1 AND (t.room IS NULL OR EXISTS (SELECT 1 FROM members m WHERE m.room = t.room AND m.user = ?1)))
                OR (t.owner = ?1 AND t.assignee IS NULL))
        """

    /// By the due moment (a date alone is due at the end of its day), not the stored text.
    static let order = " ORDER BY t.due_at IS NULL, t.due_at, t.id"
}

extension Database {
    public func insertTask(_ draft: TaskDraft) throws -> Int64 {
        try prepare("""
            INSERT INTO tasks (room, owner, title, notes, assignee, creator, due, start, estimate, points, parent,
                               repeat, rotate, remind, created)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """).run(.init(draft.room), .init(draft.owner), .text(draft.title), .init(draft.notes), .init(draft.assignee),
                     .integer(draft.creator), .init(draft.due), .init(draft.start), .init(draft.estimate),
                     .init(draft.points), .init(draft.parent), .init(draft.repeatRule), .init(draft.rotate),
                     .init(draft.remind), .text(draft.created))
        return lastInsertRowID
    }

    public func task(id: Int64) throws -> TaskRecord? {
        try prepare(TaskSQL.select(" WHERE t.id = ?1")).row(.integer(id), map: TaskSQL.record)
    }

    public func subtasks(of parent: Int64) throws -> [TaskRecord] {
        try prepare(TaskSQL.select(" WHERE t.parent = ?1") + " ORDER BY t.id").rows(.integer(parent), map: TaskSQL.record)
    }

    /// A room's progress totals over its top-level tasks that are open or were finished
    /// since `since`, and how many are open. SQLite sums, `RoomProgress.totals` decides: one
    /// row for the counted tasks without subtasks, summed, then one per counted parent with
    /// its subtasks' sums. Summed here, since the bar is drawn for every room reply and
    /// login and a room's tasks were read one by one for it (0.3 s for a room of 100,000
    /// recent ones, with the database thread held). Not the listing's grouped join: here
    /// that cost a sort of every counted task for `GROUP BY`, and took about 60 % longer
    /// than the old correlated subquery on a room of 500 parents; this form about as long.
    /// `+t.parent` keeps SQLite on `tasks_by_room` rather than every top-level task of
    /// the server by `tasks_by_parent`.
    func progressTotals(room: Int64, since: String) throws -> (totals: RoomProgress.Totals, open: Int) {
        let counted = "t.room = ?1 AND +t.parent IS NULL AND (t.done = 0 OR t.done_at >= ?2)"
        let rows = try prepare("""
            SELECT 0, count(*), coalesce(sum(t.done), 0), coalesce(sum(t.points), 0),
                   coalesce(sum(t.points) FILTER (WHERE t.done), 0), coalesce(sum(t.progress) FILTER (WHERE NOT t.done), 0),
                   coalesce(sum(t.progress * t.points) FILTER (WHERE NOT t.done), 0), 0, 0, 0, 0, 0, 0, 0
              FROM tasks t WHERE \(counted) AND NOT EXISTS (SELECT 1 FROM tasks s WHERE s.parent = t.id)
            UNION ALL
            SELECT 1, 1, t.done, t.points, t.done * t.points, 0, 0, t.progress,
                   count(*), sum(s.done), sum(s.points), coalesce(sum(s.points) FILTER (WHERE s.done), 0),
                   coalesce(sum(s.progress) FILTER (WHERE NOT s.done), 0),
                   coalesce(sum(s.progress * s.points) FILTER (WHERE NOT s.done), 0)
              FROM tasks t JOIN tasks s ON s.parent = t.id WHERE \(counted) GROUP BY t.id
            """).rows(.integer(room), .text(since)) { row in
            RoomProgress.BarRow(isParent: row.int(0) == 1,
                                own: ProgressSums(tasks: Int(row.int(1)), done: Int(row.int(2)), points: Int(row.int(3)), donePoints: Int(row.int(4)),
                                                   openProgress: Int(row.int(5)), openWeightedProgress: Int(row.int(6))),
                                progress: Int(row.int(7)),
                                subtasks: ProgressSums(tasks: Int(row.int(8)), done: Int(row.int(9)), points: Int(row.int(10)), donePoints: Int(row.int(11)),
                                                   openProgress: Int(row.int(12)), openWeightedProgress: Int(row.int(13))))
        }
        return RoomProgress.totals(rows)
    }

    /// Every task in the scope, soonest due first (no due date last): open ones, done
    /// ones, or (nil) both, and then with `finishedSince` only those done since that time,
    /// which SQLite leaves out rather than a room's whole history being read for a calendar.
    public func tasks(in scope: TaskScope, done: Bool?, finishedSince: String? = nil) throws -> [TaskRecord] {
        let (condition, ids): (String, [Int64]) = switch scope {
        case .room(let room): (" WHERE t.room = ?1", [room])
        case .mine(let user): (TaskSQL.mine, [user])
        case .personal(let user): (" WHERE t.owner = ?1", [user])
        case .sharedWith(let user, let viewer): ("""
             WHERE t.assignee = ?1 AND t.room IN
                   (SELECT a.room FROM members a JOIN members b ON b.room = a.room AND b.user = ?2 WHERE a.user = ?1)
            """, [user, viewer])
        }
        var clause = done.map { $0 ? " AND t.done = 1" : " AND t.done = 0" } ?? ""
        var values: [Statement.Value] = ids.map { .integer($0) }
        if let finishedSince {
            clause += " AND (t.done = 0 OR t.done_at >= ?\(values.count + 1))"
            values.append(.text(finishedSince))
        }
        return try prepare(TaskSQL.select(condition + clause) + TaskSQL.order).rows(values, map: TaskSQL.record)
    }

    /// Writes every field a command may change, as the domain left them: the progress to
    /// give back on reopening (`TaskRecord.finish`) and the notice times and flags
    /// (`TaskLifecycle.readyToStore`).
    public func updateTask(_ ready: ReadyTask) throws {
        let task = ready.record
        let notices = task.notices
        try prepare("""
            UPDATE tasks SET title = ?2, notes = ?3, done = ?4, progress = ?5, reopen_progress = ?22,
                             assignee = ?6, due = ?7, start = ?8,
                             estimate = ?9, points = ?10, parent = ?11, repeat = ?12, rotate = ?13, remind = ?14,
                             done_at = ?15, done_by = ?16, next_task = ?20, repeat_day = ?21,
                             due_at = ?17, remind_at = ?18, behind_at = ?19,
                             overdue_sent = ?23, remind_sent = ?24, behind_sent = ?25
            WHERE id = ?1
            """).run(.integer(task.id), .text(task.title), .init(task.notes), .init(task.done), .init(task.progress),
                     .init(task.assigneeID), .init(task.due), .init(task.start), .init(task.estimate), .init(task.points),
                     .init(task.parent), .init(task.repeatRule), .init(task.rotate), .init(task.remind),
                     .init(task.doneAt), .init(task.doneByID), .init(notices.dueAt), .init(notices.remindAt),
                     .init(notices.behindAt), .init(task.nextOccurrence), .init(task.repeatDay), .init(task.reopenProgress),
                     .init(notices.overdueSent), .init(notices.remindSent), .init(notices.behindSent))
    }

    /// Deletes the task with its subtasks and comments (cascades).
    public func deleteTask(id: Int64) throws {
        try prepare("DELETE FROM tasks WHERE id = ?1").run(.integer(id))
    }
}

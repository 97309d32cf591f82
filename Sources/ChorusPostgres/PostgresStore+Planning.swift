import ChorusCore
import ChorusStore
import Foundation

/// The scheduler's notices and STATS.
extension PostgresStore {
    static let dueNoticeLimit: Int64 = 200

    /// Claims the rows: a node whose scheduler runs at the same moment skips them, and one
    /// that reads after this commits sees them sent (READ COMMITTED re-checks a locked row),
    /// so each notice is stored once for the cluster. At most `dueNoticeLimit` a claim: the
    /// rest stay due, and the scheduler comes back for them at once.
    public func dueNotices(_ kind: NoticeKind, now: Int64) throws -> [Int64] {
        let (time, sent) = kind.columns
        return try rows("""
            SELECT id FROM tasks WHERE NOT done AND NOT \(sent) AND \(time) IS NOT NULL AND \(time) <= $1 ORDER BY \(time), id
            LIMIT $2 FOR UPDATE SKIP LOCKED
            """, [.int(now), .int(Self.dueNoticeLimit)]) { try $0.int(0) }
    }

    public func markNoticeSent(_ kind: NoticeKind, task: Int64) throws {
        try write("UPDATE tasks SET \(kind.columns.sent) = true WHERE id = $1", [.int(task)])
    }

    /// Answered from the task update just before when nothing was written since.
    public func nextNoticeTime() throws -> Int64? {
        if let known = batch.nextNotice { return known }
        return try row("""
            SELECT least((SELECT min(due_at) FROM tasks WHERE NOT done AND NOT overdue_sent AND due_at IS NOT NULL),
                         (SELECT min(remind_at) FROM tasks WHERE NOT done AND NOT remind_sent AND remind_at IS NOT NULL),
                         (SELECT min(behind_at) FROM tasks WHERE NOT done AND NOT behind_sent AND behind_at IS NOT NULL))
            """) { try $0.int64(0) } ?? nil
    }

    /// Finished tasks summed by PostgreSQL, "week" those finished at or after `since` (the
    /// domain's week, `RoomProgress`); open ones read, since being overdue is the
    /// calendar's judgement (`TaskTiming.isOverdue`).
    public func memberStats(room: Int64, since: String, now: Date) throws -> [MemberStats] {
        var stats = try members(ofRoom: room).map { MemberStats(name: $0.name, role: $0.role) }
        let index = Dictionary(uniqueKeysWithValues: stats.enumerated().map { ($1.name, $0) })
        let finished = try rows("""
            SELECT u.name, count(*), sum(t.points), count(*) FILTER (WHERE t.done_at >= $2),
                   coalesce(sum(t.points) FILTER (WHERE t.done_at >= $2), 0)
              FROM tasks t JOIN users u ON u.id = t.done_by WHERE t.room = $1 AND t.done GROUP BY t.done_by, u.name
            """, [.int(room), .text(since)]) { row in
            (name: row.text(0), done: try row.int(1), points: try row.int(2), doneWeek: try row.int(3), pointsWeek: try row.int(4))
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

import ChorusCore
import ChorusRendering
import ChorusStore
import Foundation

/// The scheduler's work on the database thread: tell people once when an open task
/// passes its due time (`task.overdue`), reaches its reminder (`task.reminder`) or its
/// plan's end (`task.behind`), and find when the next such moment is. The loop keeps a
/// single timer for that moment (`Hub+Notices.swift`); nothing polls every task.
extension CommandContext {
    /// Fires every notice whose time has come, marking each sent in this transaction, in
    /// which the notice ledger may also hold it for its audience (`emit`), and returns when the next one is
    /// owed. The earliest moment is read first: when it has not come (nearly always),
    /// nothing is due and it is the answer, in one statement.
    func fireDueNotices() throws -> Date? {
        let second = Int64(now.timeIntervalSince1970.rounded(.down))
        let earliest = try db.nextNoticeTime()
        guard let earliest, earliest <= second else { return earliest.map { Date(timeIntervalSince1970: Double($0)) } }
        for kind in NoticeKind.allCases {
            for id in try db.dueNotices(kind, now: second) {
                try db.markNoticeSent(kind, task: id)
                guard let task = try db.task(id: id), isOwed(kind, task) else { continue }
                try emitNotice(kind, task)
            }
        }
        return try nextNoticeTime()
    }

    /// The store hands over rows whose moment has come (a fact); whether the notice is
    /// still owed is the domain's. `behind` asks `TaskTiming.isBehind`, since a parent
    /// reaches 100 % when its subtasks finish without its own row being written: such a
    /// row is settled (marked sent) without a word, and re-armed when its plan changes.
    /// Overdue and reminder are owed on their candidate row alone: their moments depend on
    /// nothing a write does not re-arm, and `TaskTiming.isOverdue` (past the due second)
    /// would decline a timer that fires on the second itself (ARCHITECTURE.md, "What still
    /// lives in SQL").
    private func isOwed(_ kind: NoticeKind, _ task: TaskRecord) -> Bool {
        switch kind {
        case .behind: present.timing.isBehind(task)
        case .overdue, .reminder: true
        }
    }

    /// When the next notice is owed, if any.
    func nextNoticeTime() throws -> Date? {
        try db.nextNoticeTime().map { Date(timeIntervalSince1970: Double($0)) }
    }

    private func emitNotice(_ kind: NoticeKind, _ task: TaskRecord) throws {
        let place = task.roomName.map { " in \($0)" } ?? ""
        let name = kind.eventName
        let text: String
        var audience = try audience(of: task)
        var user: Int64? = task.room == nil ? task.ownerID : nil
        switch kind {
        case .overdue:
            text = "overdue: #\(task.id) \(task.title)\(place)" + (task.assignee.map { " (@\($0))" } ?? "")
        case .behind:
            text = "behind schedule: #\(task.id) \(task.title)\(place) is at \(task.effectiveProgress)% and its plan has ended"
        case .reminder:
            text = "reminder: #\(task.id) \(task.title)\(place), \(TimeMarks.dueText(task, now: now))"
            // The assignee's, or the whole room's when nobody has it.
            if let assignee = task.assignee, let account = try db.account(named: assignee) {
                audience = [account.id]
                user = account.id
            }
        }
        try emit(name, room: task.room, user: user,
                 payload: [("room", task.room.map { .int($0) } ?? .null), ("task", present.task(task))],
                 text: text, audience: audience, notice: true)
        // Worded for each person in their zone (`queueNotice`).
        try queueNotice(kind.notifyKind, for: audience) { shown in
            let detail = switch kind {
            case .reminder, .overdue: shown.dueText(task).capitalizedFirst + (task.assignee.map { " · @\($0)" } ?? "")
            case .behind: "At \(task.effectiveProgress)% and its plan has ended"
            }
            return .task(kind.notifyKind, task, detail: detail)
        }
    }
}

private extension NoticeKind {
    var notifyKind: NotifyKind {
        switch self {
        case .overdue: .overdue
        case .reminder: .reminder
        case .behind: .behind
        }
    }
}

private extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

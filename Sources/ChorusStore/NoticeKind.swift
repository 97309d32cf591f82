/// Which notice the scheduler owes for a task.
public enum NoticeKind: String, Sendable, CaseIterable {
    case overdue
    case reminder
    case behind
}

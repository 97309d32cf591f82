/// `open|done|overdue|all`, which tasks a listing shows (TASKS).
public enum TaskFilter: String, Sendable, CaseIterable {
    case open
    case done
    case overdue
    case all
}

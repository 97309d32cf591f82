/// `TASKS [R|mine|me]`: whose tasks a listing shows.
public enum TaskListScope: Sendable, Equatable {
    /// Assigned to the caller, plus their unassigned personal tasks (also bare `TASKS`).
    case mine
    /// The caller's personal tasks.
    case personal
    case room(String)
}

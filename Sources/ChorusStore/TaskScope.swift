/// Which tasks a listing wants.
public enum TaskScope: Sendable, Equatable {
    case room(Int64)
    /// Assigned to the user in rooms they belong to, plus their unassigned personal tasks.
    case mine(user: Int64)
    /// The user's personal tasks.
    case personal(user: Int64)
    /// Assigned to `user` in the rooms `viewer` is a member of too (TASKS @NAME).
    case sharedWith(user: Int64, viewer: Int64)
}

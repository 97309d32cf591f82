/// `TASK ADD R|me`: a room's task, or a personal one.
public enum TaskPlace: Sendable, Equatable {
    case personal
    /// R: an id or a name, resolved against the caller's rooms by the handler.
    case room(String)
}

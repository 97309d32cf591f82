/// `CALENDAR R|mine`, and `CALENDAR LINK R|me` (`me` is `.mine`: the caller's own tasks).
public enum CalendarScope: Sendable, Equatable {
    case mine
    case room(String)
}

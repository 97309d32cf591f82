/// `CALENDAR R|mine`.
public enum CalendarScope: Sendable, Equatable {
    case mine
    case room(String)
}

/// A WHEN as typed (CONTRACT §4), read and checked by the parser but not yet placed in
/// time. `today`, `+3h` or `friday` mean something only against the command's clock and
/// the server's time zone, and the parser has neither (it is pure, runs on the loop, and
/// is fuzzed and used by the client), so the domain resolves it (`When(resolving:now:)`)
/// with the same `now` the rest of the command uses.
public struct DateWord: Sendable, Equatable {
    public enum Form: Sendable, Equatable {
        case today
        case tomorrow
        /// `+Nd`, `+Nh`, `+Nm`.
        case daysAhead(Int)
        case hoursAhead(Int)
        case minutesAhead(Int)
        /// The next one, never today; 0 is Sunday.
        case weekday(Int)
        /// `YYYY-MM-DD`.
        case date(CivilDate)
        /// `YYYY-MM-DDTHH:MM`, local time.
        case localTime(CivilDate, hour: Int, minute: Int)
    }

    /// As typed, for error messages.
    public let text: String
    public let form: Form

    public static let accepted = "YYYY-MM-DD, YYYY-MM-DDTHH:MM, today, tomorrow, +Nd, +Nh, +Nm or a weekday name"
    public static let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    public init(text: String, form: Form) {
        self.text = text
        self.form = form
    }

    public init(parsing text: String) throws(ChorusError) {
        guard let form = DateWord.form(of: text) else { throw .badDate(text) }
        self.init(text: text, form: form)
    }

    private static func form(of text: String) -> Form? {
        let word = text.lowercased()
        switch word {
        case "today": return .today
        case "tomorrow": return .tomorrow
        default: break
        }
        if word.hasPrefix("+"), word.count >= 3, let amount = Int(word.dropFirst().dropLast()), (0...3650).contains(amount) {
            switch word.last {
            case "d": return .daysAhead(amount)
            case "h": return .hoursAhead(amount)
            case "m": return .minutesAhead(amount)
            default: break
            }
        }
        if let weekday = weekdays.firstIndex(where: { $0 == word || $0.prefix(3) == word }) {
            return .weekday(weekday)
        }
        if text.count == 10, let date = CivilDate(parsing: text) {
            return .date(date)
        }
        if text.count == 16, text.dropFirst(10).first == "T", let date = CivilDate(parsing: String(text.prefix(10))),
           let hour = Int(text.dropFirst(11).prefix(2)), let minute = Int(text.suffix(2)), text.dropFirst(13).first == ":",
           (0...23).contains(hour), (0...59).contains(minute) {
            return .localTime(date, hour: hour, minute: minute)
        }
        return nil
    }
}

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
        /// `YYYY-MM-DDTHH:MMZ` or `YYYY-MM-DDTHH:MM:SSZ`: a moment in UTC, the form the
        /// server writes times in, so a client in another zone than the server's (a
        /// browser) names the moment its person meant, and a stored time goes back as is.
        case utcTime(CivilDate, hour: Int, minute: Int, second: Int)
    }

    /// As typed, for error messages.
    public let text: String
    public let form: Form

    public static let accepted = "YYYY-MM-DD, YYYY-MM-DDTHH:MM[Z], today, tomorrow, +Nd, +Nh, +Nm or a weekday name"
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
        return utcTime(text)
    }

    /// `YYYY-MM-DDTHH:MMZ` or `YYYY-MM-DDTHH:MM:SSZ`, digits only where digits go.
    private static func utcTime(_ text: String) -> Form? {
        let bytes = Array(text.utf8)
        guard bytes.count == 17 || bytes.count == 20, bytes.last == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes.count == 17 || bytes[16] == UInt8(ascii: ":"),
              let date = CivilDate(parsing: String(decoding: bytes[0..<10], as: UTF8.self)) else { return nil }
        func number(_ at: Int) -> Int? {
            let pair = bytes[at..<(at + 2)]
            guard pair.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return Int(pair[at] - UInt8(ascii: "0")) * 10 + Int(pair[at + 1] - UInt8(ascii: "0"))
        }
        guard let hour = number(11), let minute = number(14), (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        let second = bytes.count == 20 ? number(17) : 0
        guard let second, (0...59).contains(second) else { return nil }
        return .utcTime(date, hour: hour, minute: minute, second: second)
    }
}

import Foundation

/// A WHEN value (CONTRACT §4) as stored: a date alone (`2026-12-05`) or an instant in UTC
/// (`2026-12-05T18:00:00Z`). Local forms are read in the server's time zone.
public struct When: Sendable, Equatable {
    /// What goes in the database and on the wire.
    public let stored: String
    public let dateOnly: Bool

    public static let accepted = DateWord.accepted

    init(stored: String, dateOnly: Bool) {
        self.stored = stored
        self.dateOnly = dateOnly
    }

    /// Reads a stored value back.
    public init?(stored: String) {
        if stored.count == 10, When.dayNumber(date: stored) != nil {
            self.init(stored: stored, dateOnly: true)
        } else if When.utcInstant(stored) != nil {
            self.init(stored: stored, dateOnly: false)
        } else {
            return nil
        }
    }

    /// Parses what a user typed, relative to `now`.
    public static func parse(_ text: String, now: Date, calendar: Calendar = .current) throws(DomainError) -> When {
        guard let word = try? DateWord(parsing: text) else { throw .badDate(text, accepted: DateWord.accepted) }
        return try When(resolving: word, now: now, calendar: calendar)
    }

    /// Places a WHEN the parser read: relative words count from `now`, local forms are in
    /// `calendar`'s time zone.
    public init(resolving word: DateWord, now: Date, calendar: Calendar = .current) throws(DomainError) {
        let today = calendar.startOfDay(for: now)
        func day(_ date: Date) -> When { When(stored: When.dateString(date, calendar: calendar), dateOnly: true) }
        func instant(_ date: Date) -> When { When(stored: Timestamp.rfc3339(date), dateOnly: false) }

        switch word.form {
        case .today: self = day(today)
        case .tomorrow: self = day(calendar.date(byAdding: .day, value: 1, to: today) ?? today)
        case .daysAhead(let amount): self = day(calendar.date(byAdding: .day, value: amount, to: today) ?? today)
        case .hoursAhead(let amount): self = instant(now.addingTimeInterval(Double(amount) * 3600))
        case .minutesAhead(let amount): self = instant(now.addingTimeInterval(Double(amount) * 60))
        case .weekday(let weekday):
            let current = calendar.component(.weekday, from: today) - 1
            var ahead = (weekday - current + 7) % 7
            if ahead == 0 { ahead = 7 }
            self = day(calendar.date(byAdding: .day, value: ahead, to: today) ?? today)
        case .date(let date):
            guard let start = When.localDate(date, calendar: calendar) else { throw .badDate(word.text, accepted: DateWord.accepted) }
            self = day(start)
        case .localTime(let date, let hour, let minute):
            guard let start = When.localDate(date, calendar: calendar),
                  let moment = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: start)
            else { throw .badDate(word.text, accepted: DateWord.accepted) }
            self = instant(moment)
        case .utcTime(let date, let hour, let minute, let second):
            self = When(stored: date.text + "T" + When.twoDigits(hour) + ":" + When.twoDigits(minute) + ":"
                + When.twoDigits(second) + "Z", dateOnly: false)
        }
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The moment this value stands for. A date alone means `hour`:`minute` local time on
    /// that day: the end of the day for a due date, 09:00 for a reminder.
    public func instant(dateOnlyAt hour: Int, _ minute: Int, _ second: Int = 0, calendar: Calendar = .current) -> Date? {
        if dateOnly {
            guard let date = When.localDate(stored, calendar: calendar) else { return nil }
            return calendar.date(bySettingHour: hour, minute: minute, second: second, of: date)
        }
        return When.utcInstant(stored)
    }

    /// Due dates: a date alone is due at the end of that day.
    public func dueInstant(calendar: Calendar = .current) -> Date? {
        instant(dateOnlyAt: 23, 59, 59, calendar: calendar)
    }

    /// The local date this value falls on, as a day number (`dayNumber(year:month:day:)`):
    /// a date alone is its own day, worked out without the calendar; an instant needs it
    /// once, for its local date. Listing a room's tasks works out `days_left` for each
    /// (`Presentation.daysLeft`), and Foundation's calendar arithmetic cost about 80 µs a
    /// task on the database thread.
    func localDayNumber(calendar: Calendar) -> Int? {
        if dateOnly { return When.dayNumber(date: stored) }
        return When.utcInstant(stored).map { When.dayNumber(of: $0, calendar: calendar) }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (negative
    /// before), by the civil-from-days arithmetic: eras of 400 years, years from March.
    public static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `YYYY-MM-DD` as a day number, only if it is a real date from 1970 to 9999.
    static func dayNumber(date text: String) -> Int? {
        CivilDate(parsing: text).map { dayNumber(year: $0.year, month: $0.month, day: $0.day) }
    }

    /// The date `dayNumber(year:month:day:)` numbered (its inverse, by the same eras).
    public static func civilDate(dayNumber: Int) -> CivilDate {
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return CivilDate(year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month, day: day)
    }

    /// A date alone.
    init(civil date: CivilDate) {
        self.init(stored: date.text, dateOnly: true)
    }

    /// The local date this value falls on and, for a time, its local time of day.
    func localParts(calendar: Calendar) -> (date: CivilDate, hour: Int, minute: Int, second: Int)? {
        if dateOnly { return CivilDate(parsing: stored).map { ($0, 0, 0, 0) } }
        guard let moment = When.utcInstant(stored) else { return nil }
        let parts = When.gregorian(like: calendar).dateComponents([.year, .month, .day, .hour, .minute, .second], from: moment)
        return (CivilDate(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1),
                parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    /// The same value `days` calendar days later: a date stays a date, a time keeps its
    /// local time of day (what a start or a reminder does when its task's due moves).
    public func shifted(byDays days: Int, calendar: Calendar = .current) -> When {
        if dateOnly, let number = When.dayNumber(date: stored) {
            return When(stored: When.civilDate(dayNumber: number + days).text, dateOnly: true)
        }
        guard let moment = When.utcInstant(stored), let later = calendar.date(byAdding: .day, value: days, to: moment) else { return self }
        return When(stored: Timestamp.rfc3339(later), dateOnly: false)
    }

    /// `calendar` if it is Gregorian, else a Gregorian one in its time zone: civil dates
    /// and day numbers are Gregorian whatever calendar the machine is set to.
    static func gregorian(like calendar: Calendar) -> Calendar {
        guard calendar.identifier != .gregorian else { return calendar }
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = calendar.timeZone
        return gregorian
    }

    /// The day number of the local date `date` falls on in the calendar's time zone.
    static func dayNumber(of date: Date, calendar: Calendar) -> Int {
        let parts = gregorian(like: calendar).dateComponents([.year, .month, .day], from: date)
        return dayNumber(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    public static func dateString(_ date: Date, calendar: Calendar) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return CivilDate(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0).text
    }

    /// `YYYY-MM-DD` as the start of that local day, only if it is a real date.
    public static func localDate(_ text: String, calendar: Calendar) -> Date? {
        CivilDate(parsing: text).flatMap { localDate($0, calendar: calendar) }
    }

    /// The start of that local day.
    static func localDate(_ date: CivilDate, calendar: Calendar) -> Date? {
        calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day))
    }

    public static func utcInstant(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "Z") else { return nil }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        guard let day = localDate(String(text.prefix(10)), calendar: utc),
              let hour = Int(text.dropFirst(11).prefix(2)), let minute = Int(text.dropFirst(14).prefix(2)),
              let second = Int(text.dropFirst(17).prefix(2)) else { return nil }
        return day.addingTimeInterval(Double(hour * 3600 + minute * 60 + second))
    }
}

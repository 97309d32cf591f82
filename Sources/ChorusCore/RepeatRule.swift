import Foundation

/// `repeat=daily|weekly|monthly|Nd`: how far apart the occurrences of a series lie.
public enum RepeatRule: Sendable, Equatable {
    /// Every `count` days (daily is 1, weekly 7).
    case days(Int)
    /// On the same day each month (or the last day of a shorter one).
    case monthly

    public static let accepted = RepeatWord.accepted

    /// The rule a task row stores (`stored`); nil for a word no rule stores.
    public init?(stored raw: String) {
        guard let word = try? RepeatWord(parsing: raw) else { return nil }
        self.init(word)
    }

    /// The rule a request's `repeat=` word names.
    public init(_ word: RepeatWord) {
        switch word {
        case .days(let count): self = .days(count)
        case .monthly: self = .monthly
        }
    }

    /// The stored and shown form: `daily`, `weekly`, `monthly`, `3d`.
    public var stored: String {
        switch self {
        case .days(1): return "daily"
        case .days(7): return "weekly"
        case .monthly: return "monthly"
        case .days(let count): return "\(count)d"
        }
    }

    /// The occurrence that follows a finished one.
    public struct Occurrence: Sendable, Equatable {
        public let due: When
        /// Calendar days from the previous due to this one, by which its start and reminder
        /// move too; nil when there was no previous due.
        public let daysMoved: Int?
        /// The day of the month a monthly series keeps (nil for a rule in days): the 31st
        /// stays the 31st after a February that had to fall on the 28th.
        public let anchorDay: Int?

        public init(due: When, daysMoved: Int?, anchorDay: Int?) {
            self.due = due
            self.daysMoved = daysMoved
            self.anchorDay = anchorDay
        }
    }

    /// The occurrence after one due `due`: the first date of the series (the previous due
    /// plus whole periods, at least one) whose local date is after today, so a chore
    /// finished late comes back on its own weekday rather than already overdue. A date
    /// stays a date, a time keeps its local time of day. A monthly series falls on
    /// `anchorDay` (the previous due's day when nil), or the last day of a shorter month.
    /// Without a previous due, one period after today.
    public func next(after due: When?, anchorDay: Int? = nil, now: Date, calendar: Calendar = .current) -> Occurrence {
        let today = When.dayNumber(of: now, calendar: calendar)
        guard let due, let local = due.localParts(calendar: calendar) else {
            let start = When.civilDate(dayNumber: today)
            let day = step(from: start, periods: 1, anchorDay: start.day)
            return Occurrence(due: When(civil: day), daysMoved: nil, anchorDay: anchorOf(start.day))
        }
        let from = When.dayNumber(year: local.date.year, month: local.date.month, day: local.date.day)
        // A first guess at the number of periods, then forward until past today.
        var periods: Int
        switch self {
        case .days(let count): periods = max(1, (today - from) / count + 1)
        case .monthly:
            let now = When.civilDate(dayNumber: today)
            periods = max(1, (now.year - local.date.year) * 12 + now.month - local.date.month)
        }
        let anchor = anchorDay ?? local.date.day
        var date = step(from: local.date, periods: periods, anchorDay: anchor)
        while When.dayNumber(year: date.year, month: date.month, day: date.day) <= today {
            periods += 1
            date = step(from: local.date, periods: periods, anchorDay: anchor)
        }
        let moved = When.dayNumber(year: date.year, month: date.month, day: date.day) - from
        let next: When
        if due.dateOnly {
            next = When(civil: date)
        } else {
            // The same local time of day; on a day whose clocks skip that hour, the calendar moves it on.
            let parts = DateComponents(year: date.year, month: date.month, day: date.day,
                                       hour: local.hour, minute: local.minute, second: local.second)
            let moment = calendar.date(from: parts) ?? now
            next = When(stored: Timestamp.rfc3339(moment), dateOnly: false)
        }
        return Occurrence(due: next, daysMoved: moved, anchorDay: anchorOf(anchor))
    }

    /// `periods` periods after `date`; in months, on `anchorDay` or the month's last day.
    private func step(from date: CivilDate, periods: Int, anchorDay: Int) -> CivilDate {
        switch self {
        case .days(let count):
            return When.civilDate(dayNumber: When.dayNumber(year: date.year, month: date.month, day: date.day) + count * periods)
        case .monthly:
            let index = date.year * 12 + (date.month - 1) + periods
            let (year, month) = (index / 12, index % 12 + 1)
            return CivilDate(year: year, month: month, day: min(anchorDay, CivilDate.daysIn(year: year, month: month)))
        }
    }

    private func anchorOf(_ day: Int) -> Int? {
        if case .monthly = self { return day }
        return nil
    }
}

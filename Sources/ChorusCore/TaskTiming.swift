import Foundation

/// The judgements of time about tasks, seen at one `now`: overdue, behind its plan, days
/// left. Listings make them for thousands of tasks, so each date's local moment is worked
/// out once per `TaskTiming` (see `CalendarMemo`).
public struct TaskTiming: Sendable {
    public let now: Date
    public let calendar: Calendar
    private let memo = CalendarMemo()

    public init(now: Date, calendar: Calendar = .current) {
        self.now = now
        self.calendar = calendar
    }

    /// `when` itself, or for a date alone that day at `hour`:`minute`:`second` local time.
    public func moment(_ when: When, at hour: Int, _ minute: Int, _ second: Int) -> Date? {
        guard when.dateOnly else { return When.utcInstant(when.stored) }
        return memo.moment(when.stored, at: hour * 3600 + minute * 60 + second) {
            when.instant(dateOnlyAt: hour, minute, second, calendar: calendar)
        }
    }

    /// When it is due: a date alone at the end of that day.
    public func dueMoment(_ when: When) -> Date? {
        moment(when, at: 23, 59, 59)
    }

    /// Whole calendar days from today until `when`'s local date (negative when past): a
    /// subtraction of day numbers, today's worked out once.
    public func daysLeft(_ when: When) -> Int? {
        guard let day = when.localDayNumber(calendar: calendar) else { return nil }
        return day - memo.today { When.dayNumber(of: now, calendar: calendar) }
    }

    /// Open and past its due moment.
    public func isOverdue(_ task: TaskRecord) -> Bool {
        guard !task.done, let due = task.due.flatMap(When.init(stored:)), let moment = dueMoment(due) else { return false }
        return moment < now
    }

    /// Its plan (start + estimate days) has ended and it is not finished
    /// (`TaskRecord.behindInstant`). The end's own second counts as ended: the scheduler's
    /// timer fires on it.
    public func isBehind(_ task: TaskRecord) -> Bool {
        let start = task.start.flatMap(When.init(stored:)).flatMap { moment($0, at: 0, 0, 0) }
        guard let end = task.behindInstant(start: start, progress: task.effectiveProgress) else { return false }
        return end <= now
    }
}

/// What one `TaskTiming` asked Foundation's calendar, kept: today's day number, and the
/// local moments of stored dates by date and time of day. Each calendar call takes tens of
/// microseconds, a room's tasks share a few hundred dates (listing 20,000 open tasks with
/// dates held the database thread for 13 s), and a command that shows no dates (a chat
/// line) asks nothing at all.
final class CalendarMemo: @unchecked Sendable {
    // Safety: `todayNumber` and `known` are only read or written while `lock` is held.
    private let lock = NSLock()
    private var todayNumber: Int?
    private var known: [String: Date?] = [:]

    func today(compute: () -> Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let todayNumber { return todayNumber }
        let value = compute()
        todayNumber = value
        return value
    }

    func moment(_ date: String, at secondOfDay: Int, compute: () -> Date?) -> Date? {
        let key = "\(date)@\(secondOfDay)"
        lock.lock()
        defer { lock.unlock() }
        if let cached = known[key] { return cached }
        let value = compute()
        known[key] = value
        return value
    }
}

import Foundation

/// A daily window in a person's own zone when notices wait (`quiet=22:00-07:00`). It may
/// wrap past midnight; a notice that arrives inside it is released when it ends.
public struct QuietHours: Sendable, Equatable {
    /// Minutes after midnight; `start != end`.
    public let start: Int
    public let end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// "HH:MM-HH:MM", 24-hour clock; the same start and end is no window at all.
    public init(parsing text: String) throws(DomainError) {
        let halves = text.split(separator: "-", omittingEmptySubsequences: false)
        guard halves.count == 2, let start = Self.minutes(halves[0]), let end = Self.minutes(halves[1]), start != end else {
            throw .badQuietHours(text)
        }
        self.init(start: start, end: end)
    }

    private static func minutes(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60
        else { return nil }
        return hour * 60 + minute
    }

    public var text: String { "\(Self.clock(start))-\(Self.clock(end))" }

    private static func clock(_ minutes: Int) -> String {
        let hour = minutes / 60, minute = minutes % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// When a notice made at `instant` may go: nil when that is now (outside the window),
    /// else the window's end in `calendar`'s zone (the same day, or the next when it
    /// wraps past midnight and `instant` is before midnight).
    public func release(after instant: Date, calendar: Calendar) -> Date? {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        let now = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = start < end ? (now >= start && now < end) : (now >= start || now < end)
        guard inside else { return nil }
        let day = calendar.startOfDay(for: instant)
        let endDay = (start > end && now >= start) ? calendar.date(byAdding: .day, value: 1, to: day) ?? day : day
        // A wall time a clock change skips is found forwards, like a due time there.
        return calendar.date(bySettingHour: end / 60, minute: end % 60, second: 0, of: endDay,
                             matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)
    }
}

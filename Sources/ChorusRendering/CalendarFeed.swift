import ChorusCore
import ChorusProtocol
import Foundation

/// A subscribed calendar's document (RFC 5545, CONTRACT §9 "Calendar feeds"): one VEVENT
/// per task with a due date, done ones marked. Pure and deterministic: the same tasks give
/// the same bytes, whenever asked (no "now" in it), so its digest is an honest ETag.
/// Folding, escaping, timing and the event's words are `ICalendar`'s, shared with CALENDAR.
public struct CalendarFeed {
    /// A task with what the store keeps for the feed: its revision and last change.
    public struct Item: Sendable {
        public let task: TaskRecord
        /// `SEQUENCE`: grows with every change to a field the feed shows.
        public let revision: Int
        /// `DTSTAMP` and `LAST-MODIFIED`: the task's last change (its creation until one).
        public let changed: Date

        public init(task: TaskRecord, revision: Int, changed: Date) {
            self.task = task
            self.revision = revision
            self.changed = changed
        }
    }

    public let name: String
    public let host: String
    public let calendar: Calendar

    public init(name: String, host: String = "chorus", calendar: Calendar = .current) {
        self.name = name
        self.host = host
        self.calendar = calendar
    }

    /// The document's bytes: CRLF line ends, lines folded at 75 octets.
    public func render(_ items: [Item]) -> [UInt8] {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chorus//Chorus 0.1//EN", "CALSCALE:GREGORIAN",
                     "METHOD:PUBLISH", "X-WR-CALNAME:" + ICalendar.escape(name),
                     "REFRESH-INTERVAL;VALUE=DURATION:" + CalendarFeedRules.refreshInterval,
                     "X-PUBLISHED-TTL:" + CalendarFeedRules.refreshInterval]
        for item in items {
            guard let due = item.task.due.flatMap(When.init(stored:)) else { continue }
            let stamp = ICalendar.utc(item.changed)
            lines += ["BEGIN:VEVENT", ICalendar.uid(item.task, host: host), "SEQUENCE:\(item.revision)",
                      "DTSTAMP:" + stamp, "LAST-MODIFIED:" + stamp]
            lines += ICalendar.timing(due, calendar: calendar)
            lines += ICalendar.content(item.task)
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return Array(ICalendar.document(lines).utf8)
    }
}

import ChorusCore
import ChorusProtocol
import Foundation

/// An RFC 5545 calendar of tasks, for a phone to import: one all-day or timed VEVENT per
/// task with a due date, a stable UID per task, and a VALARM for its reminder.
public struct ICalendar {
    public let name: String
    public let now: Date
    public let host: String
    public let calendar: Calendar

    public init(name: String, now: Date, host: String = "chorus", calendar: Calendar = .current) {
        self.name = name
        self.now = now
        self.host = host
        self.calendar = calendar
    }

    /// The whole file, CRLF line ends, lines folded at 75 octets.
    public func render(_ tasks: [TaskRecord]) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chorus//Chorus 0.1//EN", "CALSCALE:GREGORIAN",
                     "METHOD:PUBLISH", "X-WR-CALNAME:" + Self.escape(name)]
        for task in tasks {
            lines += event(task)
        }
        lines.append("END:VCALENDAR")
        return Self.document(lines)
    }

    /// Content lines as a file: each folded, each ended by CRLF.
    static func document(_ lines: [String]) -> String {
        lines.map(Self.fold).joined(separator: "\r\n") + "\r\n"
    }

    func event(_ task: TaskRecord) -> [String] {
        guard let due = task.due.flatMap(When.init(stored:)) else { return [] }
        var lines = ["BEGIN:VEVENT", Self.uid(task, host: host), "DTSTAMP:" + Self.utc(now)]
        lines += Self.timing(due, calendar: calendar)
        lines += Self.content(task)
        if let remind = task.remind.flatMap(When.init(stored:)), let moment = remind.instant(dateOnlyAt: 9, 0, calendar: calendar) {
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:" + Self.escape(task.title),
                      "TRIGGER;VALUE=DATE-TIME:" + Self.utc(moment), "END:VALARM"]
        }
        lines.append("END:VEVENT")
        return lines
    }

    /// A task's UID: the same in the file and in every feed, for as long as the task lives.
    static func uid(_ task: TaskRecord, host: String) -> String {
        "UID:task-\(task.id)@\(host)"
    }

    /// When a task happens: a date alone is an all-day event (`DTEND` the next day,
    /// exclusive); a time is a UTC instant lasting `CalendarFeedRules.timedEventMinutes`.
    static func timing(_ due: When, calendar: Calendar) -> [String] {
        if due.dateOnly, let day = When.localDate(due.stored, calendar: calendar) {
            var lines = ["DTSTART;VALUE=DATE:" + Self.compactDate(due.stored)]
            if let next = calendar.date(byAdding: .day, value: 1, to: day) {
                lines.append("DTEND;VALUE=DATE:" + Self.compactDate(When.dateString(next, calendar: calendar)))
            }
            return lines
        }
        guard let moment = When.utcInstant(due.stored) else { return [] }
        let end = moment.addingTimeInterval(Double(CalendarFeedRules.timedEventMinutes) * 60)
        return ["DTSTART:" + Self.utc(moment), "DTEND:" + Self.utc(end)]
    }

    /// What a task's event says: its title (a done one marked ✓), then room, assignee,
    /// progress and notes, its room as category, and its status.
    static func content(_ task: TaskRecord) -> [String] {
        let mark = task.done ? "✓ " : ""
        var lines = ["SUMMARY:" + Self.escape(mark + task.title)]
        var description: [String] = []
        if let room = task.roomName { description.append("Room: \(room)") }
        if let assignee = task.assignee { description.append("For: \(assignee)") }
        description.append("Progress: \(task.effectiveProgress)%")
        if let notes = task.notes { description.append(notes) }
        lines.append("DESCRIPTION:" + Self.escape(description.joined(separator: "\n")))
        if let room = task.roomName { lines.append("CATEGORIES:" + Self.escape(room)) }
        lines.append("STATUS:CONFIRMED")
        return lines
    }

    /// TEXT values escape backslash, semicolon, comma and newline (RFC 5545 §3.3.11); a
    /// CR is dropped, so CR LF is one `\n`. Everything escaped is ASCII, so this walks
    /// UTF-8 bytes, not characters (a third of a feed's rendering went to grapheme
    /// breaking), and text with nothing to escape is returned as it is.
    static func escape(_ text: String) -> String {
        func special(_ byte: UInt8) -> Bool { byte == 0x5C || byte == 0x3B || byte == 0x2C || byte == 0x0A || byte == 0x0D }
        guard text.utf8.contains(where: special) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            switch byte {
            case 0x5C, 0x3B, 0x2C: out += [0x5C, byte]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: continue
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lines longer than 75 octets continue on the next line after CRLF and a space,
    /// never splitting a UTF-8 sequence (RFC 5545 §3.1).
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var pieces: [String] = []
        var start = 0
        var limit = 75
        while start < bytes.count {
            var end = min(bytes.count, start + limit)
            // Back up to a character boundary: continuation bytes are 10xxxxxx.
            while end < bytes.count && end > start && bytes[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
            limit = 74 // the leading space counts
        }
        return pieces.joined(separator: "\r\n ")
    }

    /// `20261205T180000Z`. Filtered natively: Foundation's `replacingOccurrences` took
    /// four tenths of a feed's rendering (chorus-bench feed, perf).
    static func utc(_ date: Date) -> String {
        String(Timestamp.rfc3339(date).filter { $0 != "-" && $0 != ":" })
    }

    static func compactDate(_ stored: String) -> String {
        String(stored.filter { $0 != "-" })
    }
}

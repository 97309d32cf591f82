import ChorusCore
import ChorusProtocol
import Foundation

/// How household things look on the wire: the JSON shapes of CONTRACT §5 and the text
/// lines people read. Computed fields (`overdue`, `behind`, `days_left`) are the domain's
/// judgements (`TaskTiming`) at `now`, never stored; this type only writes them out.
public struct Presentation: Sendable {
    /// The domain's judgements of time (overdue, behind, days left) at this `now`.
    public let timing: TaskTiming
    public var now: Date { timing.now }
    public var calendar: Calendar { timing.calendar }

    public init(now: Date, calendar: Calendar = .current) {
        self.timing = TaskTiming(now: now, calendar: calendar)
    }

    // MARK: Shapes

    public func room(_ room: RoomRecord, members: [(MemberRecord, online: Bool)]? = nil) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .int(room.id)), ("name", .string(room.name)), ("role", .string(room.role.rawValue)),
            ("progress", .int(room.progress)), ("open", .int(room.open)), ("unread", .int(room.unread)),
        ]
        if let members {
            fields.append(("members", .array(members.map { member, online in
                .object([("name", .string(member.name)), ("role", .string(member.role.rawValue)), ("online", .bool(online))])
            })))
        }
        return .object(fields)
    }

    public func task(_ task: TaskRecord) -> JSONValue {
        let due = task.due.flatMap(When.init(stored:))
        return .object([
            ("id", .int(task.id)),
            ("room", task.room.map { .int($0) } ?? .null),
            ("title", .string(task.title)),
            ("notes", .string(task.notes)),
            ("status", .string(task.done ? "done" : "open")),
            ("progress", .int(task.effectiveProgress)),
            ("assignee", .string(task.assignee)),
            ("creator", .string(task.creator)),
            ("due", .string(task.due)),
            ("start", .string(task.start)),
            ("estimate", task.estimate.map { $0 == $0.rounded() ? .int(Int64($0)) : .string(String($0)) } ?? .null),
            ("points", .int(task.points)),
            ("parent", task.parent.map { .int($0) } ?? .null),
            ("repeat", .string(task.repeatRule)),
            ("rotate", task.rotate.map { .array($0.split(separator: ",").map { .string(String($0)) }) } ?? .null),
            ("remind", .string(task.remind)),
            ("overdue", .bool(timing.isOverdue(task))),
            ("behind", .bool(timing.isBehind(task))),
            ("days_left", due.flatMap(timing.daysLeft).map { .int($0) } ?? .null),
            ("created", .string(task.created)),
            ("done_at", .string(task.doneAt)),
        ])
    }

    public func message(_ message: MessageRecord) -> JSONValue { Self.message(message) }

    /// A message's shape needs no clock or zone: SAY makes it without reading the caller's.
    public static func message(_ message: MessageRecord) -> JSONValue {
        .object([("id", .int(message.id)), ("room", .int(message.room)), ("from", .string(message.from)),
                 ("text", .string(message.text)), ("at", .string(message.at))])
    }

    public func comment(_ comment: CommentRecord) -> JSONValue { Self.comment(comment) }

    /// A comment's shape, like a message's, needs no clock or zone.
    public static func comment(_ comment: CommentRecord) -> JSONValue {
        .object([("id", .int(comment.id)), ("task", .int(comment.task)), ("room", comment.room.map { .int($0) } ?? .null),
                 ("from", .string(comment.from)), ("text", .string(comment.text)), ("at", .string(comment.at))])
    }

    /// A room the caller is invited to, as ROOMS lists it: its name and who asked, nothing
    /// more of it until they accept (CONTRACT §11).
    public func invitation(_ invitation: InvitationRecord) -> JSONValue {
        .object([("id", .int(invitation.room)), ("name", .string(invitation.roomName)), ("role", .string("invited")),
                 ("invited_by", .string(invitation.invitedBy)), ("invited_at", .string(invitation.created))])
    }

    public func block(_ block: BlockRecord) -> JSONValue {
        .object([("name", .string(block.name)), ("since", .string(block.since))])
    }

    public func invite(_ invite: InviteRecord) -> JSONValue {
        .object([("code", .string(invite.code)), ("room", .int(invite.room)),
                 ("uses_left", invite.usesLeft.map { .int($0) } ?? .null), ("expires", .string(invite.expires)),
                 ("created_by", .string(invite.createdBy)), ("created", .string(invite.created))])
    }

    // MARK: Text

    /// `[####------]  40%`
    public static func bar(_ percent: Int, width: Int = 10) -> String {
        let clamped = min(100, max(0, percent))
        let filled = (clamped * width + 50) / 100
        let padded = String(repeating: " ", count: max(0, 3 - String(clamped).count)) + String(clamped)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + padded + "%"
    }

    /// The time left before the due date as a bar that empties: from the task's start (or
    /// the day it was made) to its due date. "days left [######----] 6 of 10"; nil
    /// without a due date or once done.
    public func daysLeftBar(_ task: TaskRecord, width: Int = 10) -> String? {
        guard !task.done, let due = task.due.flatMap(When.init(stored:)), let left = timing.daysLeft(due),
              let end = timing.dueMoment(due) else { return nil }
        let begin = task.start.flatMap(When.init(stored:)).flatMap { timing.moment($0, at: 0, 0, 0) }
            ?? When.utcInstant(task.created) ?? now
        let total = max(1, calendar.dateComponents([.day], from: calendar.startOfDay(for: begin),
                                                   to: calendar.startOfDay(for: end)).day ?? 1)
        let remaining = min(total, max(0, left))
        let filled = (remaining * width + total / 2) / total
        let bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
        return left < 0 ? "days left \(bar) none — \(-left) overdue" : "days left \(bar) \(remaining) of \(total)"
    }

    /// "due Tue 1 Dec (in 2 days)", "due today", "2 days overdue", "done".
    public func dueText(_ task: TaskRecord) -> String {
        dueText(due: task.due, done: task.done)
    }

    /// `dueText` of a task with this stored due value.
    public func dueText(due stored: String?, done: Bool) -> String {
        if done { return "done" }
        guard let due = stored.flatMap(When.init(stored:)), let days = timing.daysLeft(due),
              let moment = timing.dueMoment(due) else { return "" }
        if moment < now {
            let late = max(0, -days)
            if late == 0 { return "overdue since " + clock(moment) }
            return late == 1 ? "1 day overdue" : "\(late) days overdue"
        }
        let time = due.dateOnly ? "" : " " + clock(moment)
        switch days {
        case 0: return "due today" + time
        case 1: return "due tomorrow" + time
        default: return "due \(shortDate(moment))\(time) (in \(days) days)"
        }
    }

    /// One task as a listing line: `  #12  Take out trash   Flat 2B  [####------]  40%  due ...`.
    public func taskLine(_ task: TaskRecord, titleWidth: Int = 24, roomWidth: Int = 12) -> String {
        let id = "#\(task.id) ".padded(toColumns: 6)  // a blank after the id, however long
        let title = fit(task.title, titleWidth)
        let room = fit(task.roomName ?? "(personal)", roomWidth)
        var line = "  \(id)\(title)  \(room)  \(Self.bar(task.effectiveProgress))"
        let due = dueText(task)
        if !due.isEmpty { line += "  " + due }
        // Marked like overdue: `TaskTiming.isBehind`, the rule the scheduler's notice keeps.
        if timing.isBehind(task) { line += "  behind" }
        if let assignee = task.assignee { line += "  @" + assignee }
        return line
    }

    public func roomLine(_ room: RoomRecord) -> String {
        let id = "#\(room.id) ".padded(toColumns: 6)
        let line = "  \(id)\(fit(room.name, 24))  \(Self.bar(room.progress))  \(room.open) open  \(room.role.rawValue)"
        return room.unread > 0 ? line + "  \(room.unread) new" : line
    }

    /// ROOMS' line for an invitation, in the rooms' columns.
    public func invitationLine(_ invitation: InvitationRecord) -> String {
        let id = "#\(invitation.room) ".padded(toColumns: 6)
        return "  \(id)\(fit(invitation.roomName, 24))  invited by \(invitation.invitedBy) — ROOM ACCEPT \(invitation.room) or ROOM DECLINE \(invitation.room)"
    }

    /// "18:04" in this presentation's zone.
    /// Arithmetic on the zone's offset rather than `dateComponents` and `String(format:)`:
    /// every chat line's text shows a clock, and those two showed in profiles.
    public func clock(_ date: Date) -> String {
        Self.clock(date, in: calendar.timeZone)
    }

    /// `clock` in `zone`, needing no Presentation (`TimeMarks` resolves chat lines' clocks with it).
    public static func clock(_ date: Date, in zone: TimeZone) -> String {
        let offset = zone.secondsFromGMT(for: date)
        let local = Int(date.timeIntervalSince1970.rounded(.down)) + offset
        let minutes = local >= 0 ? local / 60 : (local - 59) / 60
        let minuteOfDay = (minutes % 1440 + 1440) % 1440
        let (hour, minute) = (minuteOfDay / 60, minuteOfDay % 60)
        let digits: [UInt8] = [UInt8(48 + hour / 10), UInt8(48 + hour % 10), 58, UInt8(48 + minute / 10), UInt8(48 + minute % 10)]
        return String(decoding: digits, as: UTF8.self)
    }

    public func clock(stored: String) -> String {
        When.utcInstant(stored).map(clock) ?? stored
    }

    /// When a message or comment was written, as its line shows it: "18:04" today, else
    /// with its date, "Mon 7 Dec 18:04", and the year when it is not this year's.
    public func stamp(stored: String) -> String {
        guard let date = When.utcInstant(stored) else { return stored }
        if calendar.isDate(date, inSameDayAs: now) { return clock(date) }
        let year = calendar.component(.year, from: date)
        let shownYear = year == calendar.component(.year, from: now) ? "" : " \(year)"
        return "\(shortDate(date))\(shownYear) \(clock(date))"
    }

    /// "Tue 1 Dec"
    func shortDate(_ date: Date) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        return "\(days[(parts.weekday ?? 1) - 1]) \(parts.day ?? 0) \(months[(parts.month ?? 1) - 1])"
    }

    /// Pads or cuts to exactly `width` terminal columns so columns line up, also for
    /// wide characters and emoji, never cutting one in half.
    func fit(_ text: String, _ width: Int) -> String {
        text.fitted(toColumns: width)
    }
}

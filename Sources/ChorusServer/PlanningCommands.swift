import ChorusCore
import ChorusRendering
import ChorusStore
import Foundation

/// DM, STATS, CALENDAR and SYNC.
extension CommandContext {
    static let syncPage = 100
    static let maxSyncPage = 500

    /// DM USER TEXT...: to a housemate only; a stranger is answered as a name nobody has.
    /// To someone who blocked the sender it is kept as sent for the sender alone, and the
    /// reply and the sender's events are what a delivered DM gives (CONTRACT §11).
    func dm(_ name: String, text: String) throws -> CommandResult {
        let found = try db.account(named: name.lowercased())
        // The same lookups for a name nobody has (id 0 matches no row), so no timing tells.
        let shared = try db.sharedRoomIDs(of: caller.id, and: found?.id ?? 0)
        let blocked = try db.hasBlocked(found?.id ?? 0, caller.id)
        let delivery = try Consent.directMessage(to: name, found: found?.id, caller: caller.id, sharedRooms: shared,
                                                 blockedByThem: blocked)
        guard let recipient = found else { throw DomainError.noSuchUser(name) }
        try Self.checkText(text)
        // A dropped DM is stored as the sender's note to themselves: nothing is kept for the recipient.
        let id = try db.insertDM(sender: caller.id, recipient: delivery == .delivered ? recipient.id : caller.id, text: text, at: timestamp)
        let message: JSONValue = .object([("id", .int(id)), ("to", .string(recipient.name)), ("from", .string(caller.name)),
                                          ("text", .string(text)), ("at", .string(timestamp))])
        let line = "\(TimeMarks.clock(now)) \(caller.name) → \(recipient.name): \(BidiClosing.closed(text))"
        switch delivery {
        case .delivered:
            let event = try emit("dm", room: nil, user: recipient.id, payload: [("message", message)], text: line,
                                 audience: [recipient.id, caller.id])
            try db.setEventPeer(event: event, peer: caller.id)
            try queueNotice(.dm, .directMessage(from: caller.name, text: text), for: [recipient.id])
        case .dropped:
            // Addressed to the sender: their SYNC and other sessions show it, the recipient's never do.
            try emit("dm", room: nil, user: caller.id, payload: [("message", message)], text: line, audience: [caller.id])
        }
        return result(.ok("sent to \(recipient.name)", [("message", message)]))
    }

    /// STATS [R]
    func stats(_ reference: String?) throws -> CommandResult {
        let rooms = try reference.map { [try roomRecord(try room($0))] } ?? db.rooms(ofUser: caller.id, now: now)
        var body: [String] = []
        var shapes: [JSONValue] = []
        // One week for every column and the bar: the room's own (`RoomProgress`).
        let week = RoomProgress.windowStart(now: now)
        for room in rooms {
            let members = try db.memberStats(room: room.id, since: week, now: now)
            body.append("  \(room.name) (#\(room.id))  \(Presentation.bar(room.progress))  \(room.open) open")
            // Names are never cut: the column is as wide as the longest.
            let nameWidth = members.map(\.name.terminalColumns).reduce(Self.statsNameColumns, max)
            body.append("    " + Self.columns(["member", "done", "7d", "open", "overdue", "points", "7d"], nameWidth: nameWidth))
            for member in members {
                body.append("    " + Self.columns([member.name, "\(member.done)", "\(member.doneWeek)", "\(member.open)",
                                                   "\(member.overdue)", "\(member.points)", "\(member.pointsWeek)"],
                                                  nameWidth: nameWidth))
            }
            shapes.append(.object([("room", present.room(room)), ("members", .array(members.map(Self.statsShape)))]))
        }
        var fields: [(String, JSONValue)] = [("rooms", .array(shapes))]
        if reference != nil, case .object(let only)? = shapes.first { fields = only }
        return result(.ok("stats for \(rooms.count) room\(rooms.count == 1 ? "" : "s")", body: body, fields))
    }

    /// CALENDAR R|mine
    func calendar(_ scope: CalendarScope) throws -> CommandResult {
        // Open tasks, and done ones from the last 30 days (marked ✓), that have a due date.
        let since = Timestamp.rfc3339(now.addingTimeInterval(-30 * 86400))
        let tasks: [TaskRecord]
        let name: String
        switch scope {
        case .mine:
            tasks = try db.tasks(in: .mine(user: caller.id), done: nil, finishedSince: since)
            name = "Chorus: \(caller.name)"
        case .room(let reference):
            let room = try room(reference)
            tasks = try db.tasks(in: .room(room.id), done: nil, finishedSince: since)
            name = "Chorus: \(room.name)"
        }
        let shown = tasks.filter { $0.due != nil }
        let ics = ICalendar(name: name, now: now).render(shown)
        // Text mode shows the file a line each; a note's bidi controls end with their line.
        let body = ics.components(separatedBy: "\r\n").filter { !$0.isEmpty }.map(BidiClosing.closed)
        return result(.ok("\(shown.count) task\(shown.count == 1 ? "" : "s") in the calendar", body: body, [("ics", .string(ics))]))
    }

    /// CALENDAR me: the caller's own calendar, the tasks assigned to them in all their rooms
    /// and their personal ones (what CALENDAR mine exports). A room of the caller's named
    /// `me` is found first, as CALENDAR R found it before this row existed.
    func calendarMe() throws -> CommandResult {
        if try !db.roomIDs(named: "me", forUser: caller.id).isEmpty { return try calendar(.room("me")) }
        return try calendar(.mine)
    }

    /// SYNC AFTER_ID [LIMIT]
    func sync(after: Int64, limit: Int?) throws -> CommandResult {
        // A cursor past the end came from history a restore took away: say so, or the
        // client would wait there, silently missing every event until the log caught up.
        let logEnd = try db.newestStoredEventID()
        if let restart = RestoreRules.syncRestart(cursor: after, logEnd: logEnd) {
            // No `seenUpTo`: the reply covers no event, so none written meanwhile is held back.
            return result(.ok("history was restored: your cursor #\(after) is past the end (#\(restart)); start again from #\(restart)",
                              [("events", .array([])), ("more", .bool(false)), ("reset", .bool(true)), ("last", .int(restart))]))
        }
        let page = min(limit ?? Self.syncPage, Self.maxSyncPage)
        let found = try db.events(forUser: caller.id, after: after, limit: page + 1)
        // A stored event is sent as its payload plus about 150 bytes of envelope, or as its text line.
        let fitting = Self.countFitting(found.prefix(page)) { $0.payload.utf8.count + $0.text.utf8.count + 150 }
        let more = found.count > fitting
        let events = Array(found.prefix(fitting))
        let last = events.last?.id ?? after
        // Times in the texts shown in the caller's zone (`TimeMarks`), as their live events were.
        let body = events.map { "  #\($0.id) \(TextLine.sanitized(TimeMarks.resolved($0.text, calendar: present.calendar)))" }
        let objects = events.map { JSONValue.raw(Event.storedJSON(id: $0.id, name: $0.name, at: $0.at, by: $0.by, payload: $0.payload)) }
        let hint = more ? " · more: SYNC \(last)" : ""
        var done = result(.ok("\(events.count) event\(events.count == 1 ? "" : "s") after #\(after)\(hint)", body: body,
                              [("events", .array(objects)), ("more", .bool(more)), ("last", .int(last))]))
        // Read after the page, so at or past every event in it.
        done.seenUpTo = try db.lastEventID()
        return done
    }

    static func statsShape(_ member: MemberStats) -> JSONValue {
        .object([("name", .string(member.name)), ("role", .string(member.role.rawValue)), ("done", .int(member.done)),
                 ("open", .int(member.open)), ("overdue", .int(member.overdue)), ("points", .int(member.points)),
                 ("week", .object([("done", .int(member.doneWeek)), ("points", .int(member.pointsWeek))]))])
    }

    /// The name column's width in STATS when every name is shorter.
    static let statsNameColumns = 15

    /// A name column `nameWidth` wide then right-aligned numbers, in terminal columns.
    static func columns(_ cells: [String], nameWidth: Int) -> String {
        let widths = [5, 4, 5, 8, 7, 4]
        return cells.enumerated().map { index, cell in
            if index == 0 { return cell.padded(toColumns: nameWidth) + " " }
            let width = widths[min(index - 1, widths.count - 1)]
            return String(repeating: " ", count: max(0, width - cell.terminalColumns)) + cell
        }.joined()
    }
}

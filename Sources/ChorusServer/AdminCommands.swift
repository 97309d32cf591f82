import ChorusCore
import ChorusNet
import Foundation

/// ADMIN ...: what server admins can do. Admin rights are read fresh from the database
/// for every command, so `chorusd admin grant|revoke` takes effect without a new login.
/// Every action is logged with who did it.
extension CommandContext {
    private func requireAdmin() throws {
        guard try db.account(id: caller.id)?.admin == true else {
            throw DomainError.serverAdminRequired
        }
    }

    /// ADMIN USERS
    func adminUsers() throws -> CommandResult {
        try requireAdmin()
        let accounts = try db.allAccounts()
        // With several nodes, also where each one's sessions are (AdminNodeFields).
        let nodes = status.nodes
        let body = accounts.map { entry in
            let flags = [entry.account.admin ? "admin" : nil, entry.account.disabled ? "DISABLED" : nil,
                         online.contains(entry.account.id) ? "online" : nil].compactMap { $0 }.joined(separator: " ")
            let places = nodes.map { onlineText(of: entry.account.id, in: $0) } ?? ""
            return "  \(entry.account.name.padded(toColumns: 24))  \(counted(entry.rooms, "room").padded(toColumns: 9))  since \(entry.account.created)  \(flags)\(places)"
        }
        let shapes = accounts.map { entry in
            JSONValue.object([("name", .string(entry.account.name)), ("admin", .bool(entry.account.admin)),
                              ("disabled", .bool(entry.account.disabled)), ("rooms", .int(entry.rooms)),
                              ("online", .bool(online.contains(entry.account.id))), ("created", .string(entry.account.created))]
                             + (nodes.map { onlineFields(of: entry.account.id, in: $0) } ?? []))
        }
        return result(.ok(counted(accounts.count, "account"), body: body, [("users", .array(shapes))]))
    }

    /// ADMIN ROOMS
    func adminRooms() throws -> CommandResult {
        try requireAdmin()
        let rooms = try db.allRooms()
        // In columns, as ROOMS: the id, the name cut to 24 terminal columns, then the
        // counts and the owner lined up at the widest of each.
        let memberTexts = rooms.map { counted($0.members, "member") }
        let memberWidth = memberTexts.map(\.terminalColumns).max() ?? 0
        let ownerWidth = rooms.map(\.owner.terminalColumns).max() ?? 0
        let body = zip(rooms, memberTexts).map { room, members in
            let id = "#\(room.id) ".padded(toColumns: 6)
            return "  \(id)\(room.name.fitted(toColumns: 24))  \(members.padded(toColumns: memberWidth))  owner \(room.owner.padded(toColumns: ownerWidth))  \(room.open) open"
        }
        let shapes = rooms.map { room in
            JSONValue.object([("id", .int(room.id)), ("name", .string(room.name)), ("members", .int(room.members)),
                              ("owner", .string(room.owner)), ("open", .int(room.open))])
        }
        return result(.ok(counted(rooms.count, "room"), body: body, [("rooms", .array(shapes))]))
    }

    /// ADMIN STATS
    func adminStats() throws -> CommandResult {
        try requireAdmin()
        let totals = try db.totals()
        let memory = ProcessMemory.residentBytes()
        // With several nodes the sessions are every live node's, listed below them.
        let nodes = status.nodes
        let sessions = nodes.map { $0.reduce(0) { $0 + $1.sessions } } ?? status.sessions
        let onNodes = nodes.map { " on \($0.count) node\($0.count == 1 ? "" : "s")" } ?? ""
        var body = [
            "  uptime        \(Int(status.uptime)) s",
            "  sessions      \(sessions)\(onNodes) (\(status.usersOnline) people online)",
            "  accounts      \(totals.accounts)",
            "  rooms         \(totals.rooms)",
            "  tasks         \(totals.tasks) (\(totals.openTasks) open)",
            "  messages      \(totals.messages)",
            "  events        \(totals.events) stored · \(String(format: "%.1f", status.eventsPerSecond))/s over the last minute",
            "  memory        \(memory / 1_048_576) MiB resident",
            "  closed by     " + LimitClose.allCases.map { "\($0.rawValue) \(status.limitCloses[$0, default: 0])" }.joined(separator: " · "),
            "  log           \(status.droppedLogLines) lines dropped (standard error or output full or closed)",
        ]
        if let nodes { body.insert(contentsOf: nodeLines(nodes), at: 2) }
        let closes = JSONValue.object(LimitClose.allCases.map { ($0.rawValue, .int(status.limitCloses[$0, default: 0])) })
        return result(.ok("server stats", body: body, [
            ("uptime", .int(Int(status.uptime))), ("sessions", .int(sessions)), ("online", .int(status.usersOnline)),
            ("accounts", .int(totals.accounts)), ("rooms", .int(totals.rooms)), ("tasks", .int(totals.tasks)),
            ("open_tasks", .int(totals.openTasks)), ("messages", .int(totals.messages)), ("events", .int(totals.events)),
            ("events_per_second", .raw(String(format: "%.2f", status.eventsPerSecond.isFinite ? status.eventsPerSecond : 0))),
            ("events_last_minute", .int(status.eventsLastMinute)), ("memory_bytes", .int(memory)),
            ("closed_by_limit", closes), ("log_lines_dropped", .int(status.droppedLogLines)),
        ] + (nodes.map { nodeFields($0) } ?? [])))
    }

    /// ADMIN DISABLE USER / ADMIN ENABLE USER
    func adminSetDisabled(_ name: String, _ disabled: Bool) throws -> CommandResult {
        try requireAdmin()
        let account = try user(named: name)
        guard account.id != caller.id || !disabled else { throw DomainError.disableSelf }
        _ = try db.setDisabled(name: account.name, disabled)
        // A disabled account's calendar addresses end too; enabling again does not bring them back.
        if disabled { _ = try db.deleteCalendarLinks(user: account.id) }
        // Its devices' subscriptions and waiting notices end too, as its sessions do.
        if disabled { try db.endNotices(user: account.id) }
        Log.info(disabled ? "admin disabled" : "admin enabled", ["user": account.name, "by": caller.name])
        var done = result(.ok("\(account.name) is \(disabled ? "disabled; their sessions are closed" : "enabled")",
                              [("user", .string(account.name)), ("disabled", .bool(disabled))]))
        if disabled {
            done.closeUsers = [account.id]
            done.closeReason = "your account was disabled by a server admin"
        }
        return done
    }

    /// ADMIN KICK USER
    func adminKick(_ name: String) throws -> CommandResult {
        try requireAdmin()
        let account = try user(named: name)
        Log.info("admin kicked", ["user": account.name, "by": caller.name])
        var done = result(.ok("closed the sessions of \(account.name)", [("user", .string(account.name))]))
        done.closeUsers = [account.id]
        done.closeReason = "disconnected by a server admin"
        return done
    }

    /// ADMIN DELETE R
    func adminDelete(_ id: Int64) throws -> CommandResult {
        try requireAdmin()
        guard let room = try db.allRooms().first(where: { $0.id == id }) else { throw DomainError.noSuchRoom(String(id)) }
        let audience = try db.memberIDs(ofRoom: id)
        try db.deleteRoom(id)
        let event = try emit("room.deleted", room: id, payload: [("room", .int(id)), ("name", .string(room.name))],
                             text: "server admin \(caller.name) deleted \(room.name)", audience: audience)
        try db.closeMembership(room: id, user: nil, atEvent: event)
        Log.info("admin deleted room", ["room": id, "name": room.name, "by": caller.name])
        return result(.ok("deleted room #\(id) \(room.name)", [("room", .int(id))]))
    }
}

/// The process's resident memory, from /proc.
enum ProcessMemory {
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

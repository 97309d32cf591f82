/// Rows for rooms, tasks and chat (CONTRACT §4).
extension CommandTable {
    static let roomCommands: [CommandSpec] = [
        CommandSpec("ROOMS", kind: .household, summary: "list your rooms with their progress") { _ in Command.Plain() },
        CommandSpec("ROOM", "CREATE", kind: .household, text: "NAME", summary: "create a room (a household); you become its owner") { args in
            Command.Word(value: args.text ?? "")
        },
        CommandSpec("ROOM", "SHOW", kind: .household, arguments: [.init("R")], summary: "show a room and its members") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "RENAME", kind: .household, arguments: [.init("R")], text: "NAME", summary: "rename a room (owner or admin)") { args in
            Command.RoomWord(room: args[0], word: args.text ?? "")
        },
        CommandSpec("ROOM", "ADD", kind: .household, arguments: [.init("R"), .init("USER")],
                    summary: "add a housemate at once, invite anyone else (owner or admin)") { args in
            Command.RoomWord(room: args[0], word: args[1])
        },
        CommandSpec("ROOM", "ACCEPT", kind: .household, arguments: [.init("R")], summary: "accept an invitation to a room") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "DECLINE", kind: .household, arguments: [.init("R")], summary: "decline an invitation to a room") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "REMOVE", kind: .household, arguments: [.init("R"), .init("USER")],
                    summary: "remove someone, or withdraw their invitation; invite codes no longer let them in (owner or admin)") { args in
            Command.RoomWord(room: args[0], word: args[1])
        },
        CommandSpec("ROOM", "LEAVE", kind: .household, arguments: [.init("R")], summary: "leave a room (an owner hands over first)") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "ROLE", kind: .household, arguments: [.init("R"), .init("USER"), .init("owner|admin|member")],
                    summary: "change a member's role; owner hands the room over (owner only)") { args throws(ChorusError) in
            guard let role = RoleName(rawValue: args[2].lowercased()) else { throw .unknownRole(args[2], usage: args.usage) }
            return Command.RoomRole(room: args[0], user: args[1], role: role)
        },
        CommandSpec("ROOM", "DELETE", kind: .household, arguments: [.init("R")],
                    summary: "delete a room with its tasks and messages (owner only)") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "INVITE", kind: .household, arguments: [.init("R")], options: ["uses=N", "expires=WHEN"],
                    summary: "make an invite code for ROOM JOIN (owner or admin; default: unlimited uses, 7 days)") { args throws(ChorusError) in
            var uses: Int?
            if let raw = args.options["uses"], !raw.isEmpty {
                guard let count = Int(raw), (1...1000).contains(count) else { throw .badUses(raw) }
                uses = count
            }
            let expires = try args.options["expires"].flatMap { raw throws(ChorusError) in raw.isEmpty ? nil : try DateWord(parsing: raw) }
            return Command.RoomInvite(room: args[0], uses: uses, expires: expires)
        },
        CommandSpec("ROOM", "INVITES", kind: .household, arguments: [.init("R")], summary: "list a room's invite codes (owner or admin)") { args in
            Command.Room(room: args[0])
        },
        CommandSpec("ROOM", "UNINVITE", kind: .household, arguments: [.init("R"), .init("CODE")],
                    summary: "cancel an invite code (owner or admin)") { args in
            Command.RoomWord(room: args[0], word: args[1])
        },
        CommandSpec("ROOM", "JOIN", kind: .household, arguments: [.init("CODE")], summary: "join a room with an invite code") { args in
            Command.Word(value: args[0])
        },
    ]

    static let taskOptions = ["assign=USER", "due=WHEN", "start=WHEN", "estimate=DAYS", "notes=TEXT", "remind=WHEN", "points=N",
                              "parent=T", "repeat=daily|weekly|monthly|Nd", "rotate=USER,USER,..."]

    static let taskCommands: [CommandSpec] = [
        CommandSpec("TASK", "ADD", kind: .household, arguments: [.init("R|me"), .init("TITLE")], options: taskOptions,
                    summary: "add a task to a room, or a personal one with me") { args throws(ChorusError) in
            Command.TaskAdd(place: args[0].lowercased() == "me" ? .personal : .room(args[0]), title: args[1],
                            options: try TaskOption.parse(args.options))
        },
        CommandSpec("TASK", "SHOW", kind: .household, arguments: [.init("T")],
                    summary: "show a task with its subtasks and comments") { args throws(ChorusError) in
            Command.ID(id: try taskID(args[0], args))
        },
        CommandSpec("TASK", "EDIT", kind: .household, arguments: [.init("T")], options: ["title=TEXT"] + taskOptions.filter { $0 != "assign=USER" },
                    summary: "change a task's fields; an empty value clears one (creator, admin or owner)") { args throws(ChorusError) in
            guard !args.options.isEmpty else { throw .nothingToChange(usage: args.usage) }
            let task = try taskID(args[0], args)
            return Command.TaskEdit(task: task, options: try TaskOption.parse(args.options))
        },
        CommandSpec("TASK", "ASSIGN", kind: .household, arguments: [.init("T"), .init("USER|-")],
                    summary: "give a task to a member, or - to nobody") { args throws(ChorusError) in
            Command.TaskAssign(task: try taskID(args[0], args), user: args[1] == "-" ? nil : args[1])
        },
        CommandSpec("TASK", "PROGRESS", kind: .household, arguments: [.init("T"), .init("0..100")],
                    summary: "report progress in percent") { args throws(ChorusError) in
            let task = try taskID(args[0], args)
            let raw = args[1]
            let digits = raw.hasSuffix("%") ? String(raw.dropLast()) : raw
            guard let percent = Int(digits), (0...100).contains(percent) else {
                throw .badProgress(raw)
            }
            return Command.TaskProgress(task: task, percent: percent)
        },
        CommandSpec("TASK", "DONE", kind: .household, arguments: [.init("T")], summary: "finish a task") { args throws(ChorusError) in
            Command.ID(id: try taskID(args[0], args))
        },
        CommandSpec("TASK", "REOPEN", kind: .household, arguments: [.init("T")], summary: "open a finished task again") { args throws(ChorusError) in
            Command.ID(id: try taskID(args[0], args))
        },
        CommandSpec("TASK", "DELETE", kind: .household, arguments: [.init("T")],
                    summary: "delete a task with its subtasks and comments (creator, admin or owner)") { args throws(ChorusError) in
            Command.ID(id: try taskID(args[0], args))
        },
        CommandSpec("TASKS", kind: .household, arguments: [.init("R|mine|me", optional: true), .init("open|done|overdue|all", optional: true)],
                    summary: "list tasks; alone: the open tasks assigned to you, soonest due first") { args throws(ChorusError) in
            // A lone filter word means "mine" with that filter.
            if args.positional.count == 1, let filter = TaskFilter(rawValue: args[0].lowercased()) {
                return Command.Tasks(scope: .mine, filter: filter)
            }
            let scope: TaskListScope = switch args.optional(0)?.lowercased() {
            case nil, "mine": .mine
            case "me": .personal
            default: .room(args[0])
            }
            return Command.Tasks(scope: scope, filter: try taskFilter(args.optional(1), args))
        },
        CommandSpec("TASKS", head: .mention("@NAME"), kind: .household, arguments: [.init("open|done|overdue|all", optional: true)],
                    summary: "a housemate's tasks in the rooms you share with them (or your own)") { args throws(ChorusError) in
            Command.TasksOfHousemate(user: args.mention ?? "", filter: try taskFilter(args.optional(0), args))
        },
    ]

    static let chatCommands: [CommandSpec] = [
        CommandSpec("SAY", kind: .household, arguments: [.init("R")], text: "TEXT", summary: "say something in a room") { args in
            Command.Message(to: args[0], text: args.text ?? "")
        },
        CommandSpec("COMMENT", kind: .household, arguments: [.init("T")], text: "TEXT", summary: "comment on a task") { args throws(ChorusError) in
            Command.TaskText(task: try taskID(args[0], args), text: args.text ?? "")
        },
        CommandSpec("HISTORY", kind: .household, arguments: [.init("R"), .init("LIMIT", optional: true)], options: ["before=ID"],
                    summary: "a room's latest messages, oldest first (LIMIT up to 200; before=ID pages back)") { args throws(ChorusError) in
            var limit: Int?
            if let raw = args.optional(1) {
                guard let value = Int(raw), value > 0 else { throw .badLimit(raw) }
                limit = value
            }
            var before: Int64?
            if let raw = args.options["before"] {
                guard let value = Int64(raw), value > 0 else { throw .badBefore(raw) }
                before = value
            }
            return Command.History(room: args[0], limit: limit, before: before)
        },
        CommandSpec("READ", kind: .household, arguments: [.init("R"), .init("EVENT_ID")],
                    summary: "mark the room seen up to that event, on all your devices (a lower id changes nothing)") { args throws(ChorusError) in
            guard let event = Int64(args[1]), event >= 0 else { throw .notAReadEventID(args[1], usage: args.usage) }
            return Command.Read(room: args[0], event: event)
        },
    ]

    /// `12` or `#12`.
    static func taskID(_ word: String, _ args: ParsedArguments) throws(ChorusError) -> Int64 {
        let digits = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard let id = Int64(digits), id > 0 else { throw .notATaskNumber(word, usage: args.usage) }
        return id
    }

    /// `open|done|overdue|all` in any case; none is `open`.
    static func taskFilter(_ word: String?, _ args: ParsedArguments) throws(ChorusError) -> TaskFilter {
        guard let word else { return .open }
        guard let filter = TaskFilter(rawValue: word.lowercased()) else { throw .unknownFilter(word.lowercased(), usage: args.usage) }
        return filter
    }
}

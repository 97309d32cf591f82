/// Rows for rooms, tasks and chat (CONTRACT §4).
extension CommandTable {
    static let roomCommands: [CommandSpec] = [
        CommandSpec("ROOMS", summary: "list your rooms with their progress") { _ in .rooms },
        CommandSpec("ROOM", "CREATE", text: "NAME", summary: "create a room (a household); you become its owner") { args in
            .roomCreate(name: args.text ?? "")
        },
        CommandSpec("ROOM", "SHOW", arguments: [.init("R")], summary: "show a room and its members") { args in
            .roomShow(room: args[0])
        },
        CommandSpec("ROOM", "RENAME", arguments: [.init("R")], text: "NAME", summary: "rename a room (owner or admin)") { args in
            .roomRename(room: args[0], name: args.text ?? "")
        },
        CommandSpec("ROOM", "ADD", arguments: [.init("R"), .init("USER")], summary: "add someone to a room (owner or admin)") { args in
            .roomAdd(room: args[0], user: args[1])
        },
        CommandSpec("ROOM", "REMOVE", arguments: [.init("R"), .init("USER")],
                    summary: "remove someone from a room (owner or admin)") { args in
            .roomRemove(room: args[0], user: args[1])
        },
        CommandSpec("ROOM", "LEAVE", arguments: [.init("R")], summary: "leave a room (an owner hands over first)") { args in
            .roomLeave(room: args[0])
        },
        CommandSpec("ROOM", "ROLE", arguments: [.init("R"), .init("USER"), .init("owner|admin|member")],
                    summary: "change a member's role; owner hands the room over (owner only)") { args throws(ChorusError) in
            guard ["owner", "admin", "member"].contains(args[2].lowercased()) else {
                throw args.usageError("unknown role \(args[2])")
            }
            return .roomRole(room: args[0], user: args[1], role: args[2].lowercased())
        },
        CommandSpec("ROOM", "DELETE", arguments: [.init("R")],
                    summary: "delete a room with its tasks and messages (owner only)") { args in
            .roomDelete(room: args[0])
        },
        CommandSpec("ROOM", "INVITE", arguments: [.init("R")], options: ["uses=N", "expires=WHEN"],
                    summary: "make an invite code for ROOM JOIN (owner or admin; default: unlimited uses, 7 days)") { args in
            .roomInvite(room: args[0], options: args.options)
        },
        CommandSpec("ROOM", "INVITES", arguments: [.init("R")], summary: "list a room's invite codes (owner or admin)") { args in
            .roomInvites(room: args[0])
        },
        CommandSpec("ROOM", "UNINVITE", arguments: [.init("R"), .init("CODE")],
                    summary: "cancel an invite code (owner or admin)") { args in
            .roomUninvite(room: args[0], code: args[1])
        },
        CommandSpec("ROOM", "JOIN", arguments: [.init("CODE")], summary: "join a room with an invite code") { args in
            .roomJoin(code: args[0])
        },
    ]

    static let taskOptions = ["assign=USER", "due=WHEN", "start=WHEN", "estimate=DAYS", "notes=TEXT", "remind=WHEN", "points=N",
                              "parent=T", "repeat=daily|weekly|monthly|Nd", "rotate=USER,USER,..."]

    static let taskCommands: [CommandSpec] = [
        CommandSpec("TASK", "ADD", arguments: [.init("R|me"), .init("TITLE")], options: taskOptions,
                    summary: "add a task to a room, or a personal one with me") { args in
            .taskAdd(room: args[0], title: args[1], options: args.options)
        },
        CommandSpec("TASK", "SHOW", arguments: [.init("T")], summary: "show a task with its subtasks and comments") { args throws(ChorusError) in
            .taskShow(task: try taskID(args[0], args))
        },
        CommandSpec("TASK", "EDIT", arguments: [.init("T")], options: ["title=TEXT"] + taskOptions.filter { $0 != "assign=USER" },
                    summary: "change a task's fields; an empty value clears one (creator, admin or owner)") { args throws(ChorusError) in
            guard !args.options.isEmpty else { throw args.usageError("nothing to change") }
            return .taskEdit(task: try taskID(args[0], args), options: args.options)
        },
        CommandSpec("TASK", "ASSIGN", arguments: [.init("T"), .init("USER|-")],
                    summary: "give a task to a member, or - to nobody") { args throws(ChorusError) in
            .taskAssign(task: try taskID(args[0], args), user: args[1] == "-" ? nil : args[1])
        },
        CommandSpec("TASK", "PROGRESS", arguments: [.init("T"), .init("0..100")], summary: "report progress in percent") { args throws(ChorusError) in
            .taskProgress(task: try taskID(args[0], args), percent: args[1])
        },
        CommandSpec("TASK", "DONE", arguments: [.init("T")], summary: "finish a task") { args throws(ChorusError) in
            .taskDone(task: try taskID(args[0], args))
        },
        CommandSpec("TASK", "REOPEN", arguments: [.init("T")], summary: "open a finished task again") { args throws(ChorusError) in
            .taskReopen(task: try taskID(args[0], args))
        },
        CommandSpec("TASK", "DELETE", arguments: [.init("T")],
                    summary: "delete a task with its subtasks and comments (creator, admin or owner)") { args throws(ChorusError) in
            .taskDelete(task: try taskID(args[0], args))
        },
        CommandSpec("TASKS", arguments: [.init("R|mine|me", optional: true), .init("open|done|overdue|all", optional: true)],
                    summary: "list tasks; alone: the open tasks assigned to you, soonest due first") { args in
            // A lone filter word means "mine" with that filter.
            if args.positional.count == 1, taskFilters.contains(args[0].lowercased()) {
                return .tasks(scope: nil, filter: args[0].lowercased())
            }
            return .tasks(scope: args.optional(0), filter: args.optional(1)?.lowercased())
        },
    ]

    static let taskFilters: Set<String> = ["open", "done", "overdue", "all"]

    static let chatCommands: [CommandSpec] = [
        CommandSpec("SAY", arguments: [.init("R")], text: "TEXT", summary: "say something in a room") { args in
            .say(room: args[0], text: args.text ?? "")
        },
        CommandSpec("COMMENT", arguments: [.init("T")], text: "TEXT", summary: "comment on a task") { args throws(ChorusError) in
            .comment(task: try taskID(args[0], args), text: args.text ?? "")
        },
        CommandSpec("HISTORY", arguments: [.init("R"), .init("LIMIT", optional: true)], options: ["before=ID"],
                    summary: "a room's latest messages, oldest first (LIMIT up to 200; before=ID pages back)") { args in
            .history(room: args[0], limit: args.optional(1), before: args.options["before"])
        },
    ]

    static let planningCommands: [CommandSpec] = [
        CommandSpec("DM", arguments: [.init("USER")], text: "TEXT", summary: "send someone a direct message") { args in
            .dm(user: args[0], text: args.text ?? "")
        },
        CommandSpec("STATS", arguments: [.init("R", optional: true)],
                    summary: "who did what: done, open, overdue and points per member, and room progress") { args in
            .stats(room: args.optional(0))
        },
        CommandSpec("CALENDAR", arguments: [.init("R|mine")],
                    summary: "the tasks with a due date as an iCalendar file for a phone calendar") { args in
            .calendar(scope: args[0])
        },
        CommandSpec("SYNC", arguments: [.init("AFTER_ID"), .init("LIMIT", optional: true)],
                    summary: "the events you missed after an event id, oldest first (LIMIT up to 500)") { args throws(ChorusError) in
            guard let after = Int64(args[0]), after >= 0 else { throw args.usageError("AFTER_ID is an event id, not \(args[0])") }
            var limit: Int?
            if let raw = args.optional(1) {
                guard let value = Int(raw), value > 0 else { throw args.usageError("LIMIT is a positive number, not \(raw)") }
                limit = value
            }
            return .sync(after: after, limit: limit)
        },
    ]

    /// `12` or `#12`.
    static func taskID(_ word: String, _ args: ParsedArguments) throws(ChorusError) -> Int64 {
        let digits = word.hasPrefix("#") ? String(word.dropFirst()) : word
        guard let id = Int64(digits), id > 0 else { throw args.usageError("a task is named by its number, not \(word)") }
        return id
    }
}

/// Rows for direct messages, stats, the calendar and catching up (CONTRACT §4).
extension CommandTable {
    static let planningCommands: [CommandSpec] = [
        CommandSpec("DM", kind: .household, arguments: [.init("USER")], text: "TEXT",
                    summary: "send a direct message to someone you share a room with") { args in
            Command.Message(to: args[0], text: args.text ?? "")
        },
        CommandSpec("BLOCK", kind: .household, arguments: [.init("USER")],
                    summary: "stop someone's invitations and DMs reaching you (they are not told)") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("UNBLOCK", kind: .household, arguments: [.init("USER")], summary: "let someone's invitations and DMs reach you again") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("BLOCKS", kind: .household, summary: "list whom you blocked") { _ in Command.Plain() },
        CommandSpec("STATS", kind: .household, arguments: [.init("R", optional: true)],
                    summary: "who did what: done, open, overdue and points per member, and room progress") { args in
            Command.Stats(room: args.optional(0))
        },
        CommandSpec("CALENDAR", kind: .household, arguments: [.init("R|mine")],
                    summary: "the tasks with a due date as an iCalendar file for a phone calendar") { args in
            Command.Calendar(scope: args[0].lowercased() == "mine" ? .mine : .room(args[0]))
        },
        CommandSpec("CALENDAR", "me", kind: .household,
                    summary: "your calendar: the tasks assigned to you in all your rooms, and your personal ones") { _ in
            Command.Plain()
        },
        CommandSpec("CALENDAR", "LINK", kind: .household, arguments: [.init("R|me")],
                    summary: "a secret address your phone's calendar subscribes to; replaces the old one") { args in
            Command.CalendarLink(scope: args[0].lowercased() == "me" ? .mine : .room(args[0]))
        },
        CommandSpec("CALENDAR", "UNLINK", kind: .household, arguments: [.init("R|me")],
                    summary: "end the calendar address CALENDAR LINK gave") { args in
            Command.CalendarLink(scope: args[0].lowercased() == "me" ? .mine : .room(args[0]))
        },
        CommandSpec("SYNC", kind: .household, arguments: [.init("AFTER_ID"), .init("LIMIT", optional: true)],
                    summary: "the events you missed after an event id, oldest first (LIMIT up to 500)") { args throws(ChorusError) in
            guard let after = Int64(args[0]), after >= 0 else { throw .notAnEventID(args[0], usage: args.usage) }
            var limit: Int?
            if let raw = args.optional(1) {
                guard let value = Int(raw), value > 0 else { throw .limitNotPositive(raw, usage: args.usage) }
                limit = value
            }
            return Command.Sync(after: after, limit: limit)
        },
    ]
}

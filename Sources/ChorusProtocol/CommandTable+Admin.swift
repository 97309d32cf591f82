/// Rows for bot tokens and server admins (CONTRACT §4).
extension CommandTable {
    static let botCommands: [CommandSpec] = [
        CommandSpec("TOKEN", "CREATE", kind: .household, arguments: [.init("LABEL")], options: ["kind=device|bot"],
                    summary: "make a token for a device or a bot (default) of this account; the secret is shown once") { args throws(ChorusError) in
            var kind = TokenKind.standard
            if let raw = args.options["kind"] {
                guard let named = TokenKind(rawValue: raw.lowercased()) else { throw .badTokenKind(raw) }
                kind = named
            }
            return Command.TokenCreate(label: args[0], kind: kind)
        },
        CommandSpec("TOKEN", "LIST", kind: .household, summary: "list this account's tokens (never their secrets)") { _ in Command.Plain() },
        CommandSpec("TOKEN", "REVOKE", kind: .household, arguments: [.init("LABEL")],
                    summary: "end a token and close the sessions that used it") { args in
            Command.Word(value: args[0])
        },
    ]

    static let adminCommands: [CommandSpec] = [
        CommandSpec("ADMIN", "USERS", kind: .admin, summary: "every account (server admins)") { _ in Command.Plain() },
        CommandSpec("ADMIN", "ROOMS", kind: .admin, summary: "every room (server admins)") { _ in Command.Plain() },
        CommandSpec("ADMIN", "STATS", kind: .admin, summary: "uptime, sessions, accounts, rooms, tasks, events/s, memory (server admins)") { _ in
            Command.Plain()
        },
        CommandSpec("ADMIN", "DISABLE", kind: .admin, arguments: [.init("USER")],
                    summary: "close someone's sessions and refuse their logins and tokens (server admins)") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("ADMIN", "ENABLE", kind: .admin, arguments: [.init("USER")], summary: "let a disabled account in again (server admins)") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("ADMIN", "KICK", kind: .admin, arguments: [.init("USER")], summary: "close someone's sessions (server admins)") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("ADMIN", "DELETE", kind: .admin, arguments: [.init("R")],
                    summary: "delete any room by id, with its tasks and messages (server admins)") { args throws(ChorusError) in
            let digits = args[0].hasPrefix("#") ? String(args[0].dropFirst()) : args[0]
            guard let id = Int64(digits), id > 0 else { throw .notARoomID(args[0], usage: args.usage) }
            return Command.ID(id: id)
        },
    ]
}

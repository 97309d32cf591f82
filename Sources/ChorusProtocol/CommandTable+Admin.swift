/// Rows for bot tokens and server admins (CONTRACT §4).
extension CommandTable {
    static let botCommands: [CommandSpec] = [
        CommandSpec("TOKEN", "CREATE", arguments: [.init("LABEL")],
                    summary: "make a bot token for this account; the secret is shown once") { args in
            .tokenCreate(label: args[0])
        },
        CommandSpec("TOKEN", "LIST", summary: "list this account's tokens (never their secrets)") { _ in .tokenList },
        CommandSpec("TOKEN", "REVOKE", arguments: [.init("LABEL")],
                    summary: "end a token and close the sessions that used it") { args in
            .tokenRevoke(label: args[0])
        },
    ]

    static let adminCommands: [CommandSpec] = [
        CommandSpec("ADMIN", "USERS", summary: "every account (server admins)") { _ in .adminUsers },
        CommandSpec("ADMIN", "ROOMS", summary: "every room (server admins)") { _ in .adminRooms },
        CommandSpec("ADMIN", "STATS", summary: "uptime, sessions, accounts, rooms, tasks, events/s, memory (server admins)") { _ in
            .adminStats
        },
        CommandSpec("ADMIN", "DISABLE", arguments: [.init("USER")],
                    summary: "close someone's sessions and refuse their logins and tokens (server admins)") { args in
            .adminDisable(user: args[0])
        },
        CommandSpec("ADMIN", "ENABLE", arguments: [.init("USER")], summary: "let a disabled account in again (server admins)") { args in
            .adminEnable(user: args[0])
        },
        CommandSpec("ADMIN", "KICK", arguments: [.init("USER")], summary: "close someone's sessions (server admins)") { args in
            .adminKick(user: args[0])
        },
        CommandSpec("ADMIN", "DELETE", arguments: [.init("R")],
                    summary: "delete any room by id, with its tasks and messages (server admins)") { args throws(ChorusError) in
            let digits = args[0].hasPrefix("#") ? String(args[0].dropFirst()) : args[0]
            guard let id = Int64(digits), id > 0 else { throw args.usageError("ADMIN DELETE takes a room id, not \(args[0])") }
            return .adminDelete(room: id)
        },
    ]
}

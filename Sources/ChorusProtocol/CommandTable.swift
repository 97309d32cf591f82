/// Every verb the server knows, in the order HELP lists them. The parser checks arity
/// and options against this table, so usage errors come from one place; the server maps
/// the built `Command` to its handler, and the client uses the table to quote words.
public enum CommandTable {
    public static let all: [CommandSpec] = sessionCommands + accountCommands + roomCommands + taskCommands + chatCommands + planningCommands + botCommands + adminCommands

    static let sessionCommands: [CommandSpec] = [
        CommandSpec("HELP", arguments: [.init("VERB", optional: true), .init("SUBVERB", optional: true)],
                    needsLogin: false, summary: "list the commands, or show how to use one") { args in
            let topic = args.positional.isEmpty ? nil : args.positional.joined(separator: " ")
            return .help(topic: topic)
        },
        CommandSpec("MODE", arguments: [.init("text|json")], needsLogin: false,
                    summary: "switch replies and events between text (people) and JSON lines (bots)") { args throws(ChorusError) in
            guard let mode = OutputMode(rawValue: args[0].lowercased()) else {
                throw args.usageError("unknown mode \(args[0])")
            }
            return .mode(mode)
        },
        CommandSpec("PING", arguments: [.init("TOKEN", optional: true)], needsLogin: false,
                    summary: "check the connection; the reply echoes TOKEN") { args in
            .ping(token: args.optional(0))
        },
        CommandSpec("QUIT", needsLogin: false, summary: "say goodbye; the server closes the connection") { _ in
            .quit
        },
    ]

    static let accountCommands: [CommandSpec] = [
        CommandSpec("REGISTER", arguments: [.init("NAME"), .init("PASSWORD")], needsLogin: false,
                    summary: "create an account and log in (name: 2-32 of a-z 0-9 . _ -; password: 15-1024 bytes)") { args in
            .register(name: args[0], password: args[1])
        },
        CommandSpec("LOGIN", arguments: [.init("NAME"), .init("PASSWORD")], needsLogin: false,
                    summary: "log in with a password") { args in
            .login(name: args[0], password: args[1])
        },
        CommandSpec("LOGOUT", summary: "log out, keeping the connection") { _ in .logout },
        CommandSpec("WHOAMI", summary: "show who this session is logged in as") { _ in .whoami },
        CommandSpec("AUTH", arguments: [.init("TOKEN")], needsLogin: false, summary: "log in with a bot token") { args in
            .auth(token: args[0])
        },
        CommandSpec("PASSWORD", arguments: [.init("OLD"), .init("NEW")],
                    summary: "change your password") { args in
            .password(old: args[0], new: args[1])
        },
    ]

    /// Rows by verb, then sub-verb ("" for none), upper case.
    static let index: [String: [String: CommandSpec]] = {
        var index: [String: [String: CommandSpec]] = [:]
        for spec in all {
            index[spec.verb, default: [:]][spec.subverb ?? ""] = spec
        }
        return index
    }()

    /// The rows for a verb (case-insensitive), empty when unknown.
    public static func rows(forVerb verb: String) -> [CommandSpec] {
        all.filter { $0.verb == verb.uppercased() }
    }

    public static func hasSubverbs(_ verb: String) -> Bool {
        guard let rows = index[verb.uppercased()] else { return false }
        return rows.keys.contains { !$0.isEmpty }
    }

    public static func spec(verb: String, subverb: String?) -> CommandSpec? {
        index[verb.uppercased()]?[subverb?.uppercased() ?? ""]
    }
}

/// Every verb the server knows, in the order HELP lists them. The parser checks arity
/// and options against this table and each row builds its typed `Command`, so usage
/// errors come from one place; the server finds each row's handler by the row's name,
/// and the client uses the table to quote words.
public enum CommandTable {
    public static let all: [CommandSpec] = sessionCommands + accountCommands + roomCommands + taskCommands + chatCommands + planningCommands + pushCommands + notifyCommands + botCommands + adminCommands

    static let sessionCommands: [CommandSpec] = [
        CommandSpec("HELP", kind: .session, arguments: [.init("VERB", optional: true), .init("SUBVERB", optional: true)],
                    needsLogin: false, summary: "list the commands, or show how to use one") { args in
            Command.Help(topic: args.positional.isEmpty ? nil : args.positional.joined(separator: " "))
        },
        CommandSpec("MODE", kind: .session, arguments: [.init("text|json")], needsLogin: false,
                    summary: "switch replies and events between text (people) and JSON lines (bots)") { args throws(ChorusError) in
            guard let mode = OutputMode(rawValue: args[0].lowercased()) else {
                throw .unknownMode(args[0], usage: args.usage)
            }
            return Command.Mode(mode: mode)
        },
        CommandSpec("PING", kind: .session, arguments: [.init("TOKEN", optional: true)], needsLogin: false,
                    summary: "check the connection; the reply echoes TOKEN") { args in
            Command.Ping(token: args.optional(0))
        },
        CommandSpec("QUIT", kind: .session, needsLogin: false, summary: "say goodbye; the server closes the connection") { _ in
            Command.Plain()
        },
    ]

    static let accountCommands: [CommandSpec] = [
        CommandSpec("REGISTER", kind: .account, arguments: [.init("NAME"), .init("PASSWORD")], options: ["invite=CODE"],
                    needsLogin: false,
                    summary: "create an account and log in (name: 2-32 of a-z 0-9 . _ -; password: 15-1024 bytes); "
                        + "invite=CODE also joins that room, and is needed on an invite-only server") { args in
            // An empty `invite=` is no code: the server then answers as for none.
            Command.Registration(name: args[0], password: args[1], invite: args.options["invite"].flatMap { $0.isEmpty ? nil : $0 })
        },
        CommandSpec("LOGIN", kind: .account, arguments: [.init("NAME"), .init("PASSWORD")], needsLogin: false,
                    summary: "log in with a password") { args in
            Command.Credentials(name: args[0], password: args[1])
        },
        CommandSpec("LOGOUT", kind: .account, summary: "log out, keeping the connection") { _ in Command.Plain() },
        CommandSpec("WHOAMI", kind: .account, summary: "show who this session is logged in as") { _ in Command.Plain() },
        CommandSpec("AUTH", kind: .account, arguments: [.init("TOKEN")], needsLogin: false, summary: "log in with a bot token") { args in
            Command.Word(value: args[0])
        },
        CommandSpec("PASSWORD", kind: .account, arguments: [.init("OLD"), .init("NEW")],
                    summary: "change your password") { args in
            Command.Password(old: args[0], new: args[1])
        },
    ]

    /// A verb's rows by what picks them.
    struct VerbRows {
        /// By keyword, upper case.
        var keywords: [String: CommandSpec] = [:]
        var mention: CommandSpec?
        var verbOnly: CommandSpec?
    }

    /// Rows by verb, upper case.
    static let index: [String: VerbRows] = {
        var index: [String: VerbRows] = [:]
        for spec in all {
            switch spec.head {
            case .keyword(let word): index[spec.verb, default: VerbRows()].keywords[word.uppercased()] = spec
            case .mention: index[spec.verb, default: VerbRows()].mention = spec
            case .verbOnly: index[spec.verb, default: VerbRows()].verbOnly = spec
            }
        }
        return index
    }()

    /// The rows for a verb (case-insensitive), empty when unknown.
    public static func rows(forVerb verb: String) -> [CommandSpec] {
        all.filter { $0.verb == verb.uppercased() }
    }

    /// The usage lines of a verb's rows, as errors list them.
    public static func usages(forVerb verb: String) -> String {
        rows(forVerb: verb).map(\.usage).joined(separator: " | ")
    }

    /// The row named `VERB [SUBVERB]`, the sub-verb being a keyword or a mention's placeholder.
    public static func spec(verb: String, subverb: String?) -> CommandSpec? {
        guard let rows = index[verb.uppercased()] else { return nil }
        guard let subverb else { return rows.verbOnly }
        if let mention = rows.mention, mention.subverb?.uppercased() == subverb.uppercased() { return mention }
        return rows.keywords[subverb.uppercased()]
    }

    /// Which row a request names, from its verb and the word after it.
    public enum Selection {
        /// `takesWord`: the word after the verb picked the row (a keyword or `@NAME`) and
        /// is not one of its arguments.
        case row(CommandSpec, takesWord: Bool)
        case unknownVerb
        /// The verb's rows all need a sub-verb; none was given.
        case missingSubverb
        case unknownSubverb
    }

    /// The row for VERB and the bare word after it ("" at the end of the line): its
    /// keyword's row, else its mention row for an `@NAME`, else its row without a
    /// sub-verb. The parser and the client pick the same way.
    /// Whether `verb` (upper case) has rows picked by the word after it (a keyword or an
    /// `@NAME`), so `select` needs that word.
    public static func picksRowByNextWord(_ verb: String) -> Bool {
        guard let rows = index[verb] else { return false }
        return !rows.keywords.isEmpty || rows.mention != nil
    }

    public static func select(verb: String, next word: String) -> Selection {
        guard let rows = index[verb.uppercased()] else { return .unknownVerb }
        if !rows.keywords.isEmpty, let row = rows.keywords[word.uppercased()] {
            return .row(row, takesWord: true)
        }
        if let row = rows.mention, word.hasPrefix("@"), word.count > 1 {
            return .row(row, takesWord: true)
        }
        if let row = rows.verbOnly {
            return .row(row, takesWord: false)
        }
        return word.isEmpty ? .missingSubverb : .unknownSubverb
    }
}

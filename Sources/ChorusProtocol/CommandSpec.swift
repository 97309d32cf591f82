/// One row of the command table: what picks it, what it takes, whether it needs a login,
/// what kind of verb it is, how to build its typed `Command`, and the words `HELP` and
/// usage errors show. The server finds its handler by the row's name (`RouteTable`), and
/// checks that the handler reads the type this row's builder makes.
public struct CommandSpec: Sendable {
    public struct Argument: Sendable {
        public let name: String
        public let optional: Bool

        public init(_ name: String, optional: Bool = false) {
            self.name = name
            self.optional = optional
        }
    }

    /// What picks the row among its verb's rows, after the verb.
    public enum Head: Sendable, Equatable {
        /// Nothing: `TASKS [R|mine|me] ...`. At most one such row per verb.
        case verbOnly
        /// A keyword, any case: `ROOM CREATE`, `CALENDAR me`.
        case keyword(String)
        /// A word `@NAME` naming an account (`TASKS @bob`); the builder gets NAME as
        /// `ParsedArguments.mention`. The string is what usage shows.
        case mention(String)
    }

    public let verb: String
    public let head: Head
    public let kind: CommandKind
    public let arguments: [Argument]
    /// Placeholder of the free text that ends the line (text verbs), e.g. "TEXT".
    public let text: String?
    /// Allowed `key=value` options, written as in usage: "uses=N".
    public let options: [String]
    public let needsLogin: Bool
    public let summary: String
    /// The `Command` type the builder makes: the shape the row's handler reads.
    public let commandType: any ParsedCommand.Type
    let build: @Sendable (ParsedArguments) throws(ChorusError) -> any ParsedCommand

    /// A row picked by a keyword sub-verb, or by the verb alone when `subverb` is nil.
    public init<Built: ParsedCommand>(
        _ verb: String, _ subverb: String? = nil, kind: CommandKind, arguments: [Argument] = [], text: String? = nil,
        options: [String] = [], needsLogin: Bool = true, summary: String,
        build: @escaping @Sendable (ParsedArguments) throws(ChorusError) -> Built
    ) {
        self.init(verb, head: subverb.map(Head.keyword) ?? .verbOnly, kind: kind, arguments: arguments, text: text,
                  options: options, needsLogin: needsLogin, summary: summary, build: build)
    }

    public init<Built: ParsedCommand>(
        _ verb: String, head: Head, kind: CommandKind, arguments: [Argument] = [], text: String? = nil,
        options: [String] = [], needsLogin: Bool = true, summary: String,
        build: @escaping @Sendable (ParsedArguments) throws(ChorusError) -> Built
    ) {
        self.verb = verb
        self.head = head
        self.kind = kind
        self.arguments = arguments
        self.text = text
        self.options = options
        self.needsLogin = needsLogin
        self.summary = summary
        self.commandType = Built.self
        self.build = { arguments throws(ChorusError) in try build(arguments) }
    }

    /// The word after the verb as HELP and the table's index know it: the keyword, or
    /// the mention's placeholder (`@NAME`); nil for a row picked by its verb alone.
    public var subverb: String? {
        switch head {
        case .verbOnly: nil
        case .keyword(let word), .mention(let word): word
        }
    }

    /// "VERB [SUBVERB]", the name the table and HELP know it by.
    public var name: String { subverb.map { "\(verb) \($0)" } ?? verb }

    public var optionKeys: [String] {
        options.map { option in String(option.prefix { $0 != "=" }) }
    }

    /// The usage line: `ROOM INVITE R [uses=N] [expires=WHEN]`.
    public var usage: String {
        ([usageHead] + options.map { "[\($0)]" }).joined(separator: " ")
    }

    /// The usage without its options: what HELP keeps on a wrapped row's first line.
    public var usageHead: String {
        var words = [name]
        for argument in arguments {
            words.append(argument.optional ? "[\(argument.name)]" : argument.name)
        }
        if let text { words.append("\(text)...") }
        return words.joined(separator: " ")
    }

    public var minimumArguments: Int { arguments.filter { !$0.optional }.count }

    /// The typed command for these words; usage errors come from the row.
    public func command(from arguments: ParsedArguments) throws(ChorusError) -> any ParsedCommand {
        try build(arguments)
    }
}

/// The words of a request after tokenising, handed to a row's builder.
public struct ParsedArguments: Sendable {
    public let positional: [String]
    public let options: [String: String]
    public let text: String?
    /// NAME of the `@NAME` that picked a mention row.
    public let mention: String?
    /// The row's usage line, which every usage error ends with.
    let usage: String

    public init(positional: [String], options: [String: String], text: String?, mention: String? = nil, usage: String) {
        self.positional = positional
        self.options = options
        self.text = text
        self.mention = mention
        self.usage = usage
    }

    public subscript(index: Int) -> String { positional[index] }

    public func optional(_ index: Int) -> String? {
        index < positional.count ? positional[index] : nil
    }
}

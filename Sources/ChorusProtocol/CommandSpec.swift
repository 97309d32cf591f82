/// One row of the command table: what a verb takes, whether it needs a login, how to
/// build its `Command`, and the words `HELP` and usage errors show.
public struct CommandSpec: Sendable {
    public struct Argument: Sendable {
        public let name: String
        public let optional: Bool

        public init(_ name: String, optional: Bool = false) {
            self.name = name
            self.optional = optional
        }
    }

    public let verb: String
    public let subverb: String?
    public let arguments: [Argument]
    /// Placeholder of the free text that ends the line (text verbs), e.g. "TEXT".
    public let text: String?
    /// Allowed `key=value` options, written as in usage: "uses=N".
    public let options: [String]
    public let needsLogin: Bool
    public let summary: String
    let build: @Sendable (ParsedArguments) throws(ChorusError) -> Command

    public init(
        _ verb: String, _ subverb: String? = nil, arguments: [Argument] = [], text: String? = nil,
        options: [String] = [], needsLogin: Bool = true, summary: String,
        build: @escaping @Sendable (ParsedArguments) throws(ChorusError) -> Command
    ) {
        self.verb = verb
        self.subverb = subverb
        self.arguments = arguments
        self.text = text
        self.options = options
        self.needsLogin = needsLogin
        self.summary = summary
        self.build = build
    }

    /// "VERB [SUBVERB]", the name the table and HELP know it by.
    public var name: String { subverb.map { "\(verb) \($0)" } ?? verb }

    public var optionKeys: [String] {
        options.map { option in String(option.prefix { $0 != "=" }) }
    }

    /// The usage line: `ROOM INVITE R [uses=N] [expires=WHEN]`.
    public var usage: String {
        var words = [name]
        for argument in arguments {
            words.append(argument.optional ? "[\(argument.name)]" : argument.name)
        }
        if let text { words.append("\(text)...") }
        for option in options { words.append("[\(option)]") }
        return words.joined(separator: " ")
    }

    public var minimumArguments: Int { arguments.filter { !$0.optional }.count }
}

/// The words of a request after tokenising, handed to a row's builder.
public struct ParsedArguments: Sendable {
    public let positional: [String]
    public let options: [String: String]
    public let text: String?
    let usage: String

    public init(positional: [String], options: [String: String], text: String?, usage: String) {
        self.positional = positional
        self.options = options
        self.text = text
        self.usage = usage
    }

    public subscript(index: Int) -> String { positional[index] }

    public func optional(_ index: Int) -> String? {
        index < positional.count ? positional[index] : nil
    }

    /// A usage error for this row: `ERR 400 usage: ...`.
    public func usageError(_ reason: String? = nil) -> ChorusError {
        .syntax((reason.map { "\($0); " } ?? "") + "usage: \(usage)")
    }
}

/// The typed commands the `CommandTable`'s rows build (`Command.TaskAdd`, `Command.Room`...).
/// Each row's builder makes one from the words of a line, reading every value once (ids,
/// percents, roles, filters, limits, dates, options), so a handler gets values, never
/// strings to check again. The server attaches a handler to each row by its name (its
/// route table); nothing here knows about handlers.
public enum Command {}

/// A command as its row built it: the arguments of one request, typed and checked.
public protocol ParsedCommand: Sendable, Equatable {}

extension ParsedCommand {
    /// Equal when `other` is the same command with the same arguments.
    func isEqual(to other: any ParsedCommand) -> Bool {
        (other as? Self) == self
    }
}

/// How a session wants its replies and events written (CONTRACT §3).
public enum OutputMode: String, Sendable, Equatable {
    case text
    case json
}

/// One parsed request line: the optional tag, the typed command and what its row says.
public struct Request: Sendable, Equatable {
    public let tag: String?
    public let command: any ParsedCommand
    /// The name of the table row that produced it, e.g. "ROOM CREATE".
    public let verb: String
    public let kind: CommandKind
    /// The row says the session must be logged in first.
    public let needsLogin: Bool

    public init(tag: String?, command: any ParsedCommand, verb: String, kind: CommandKind, needsLogin: Bool) {
        self.tag = tag
        self.command = command
        self.verb = verb
        self.kind = kind
        self.needsLogin = needsLogin
    }

    /// The command, if it is a `C`.
    public func command<C: ParsedCommand>(as type: C.Type) -> C? {
        command as? C
    }

    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs.tag == rhs.tag && lhs.verb == rhs.verb && lhs.kind == rhs.kind && lhs.needsLogin == rhs.needsLogin
            && lhs.command.isEqual(to: rhs.command)
    }
}

/// A request's meaning, typed: what handlers switch over. Built from the words of a line
/// by the `CommandTable`, which has already checked arity and options.
public enum Command: Sendable, Equatable {
    // Session
    case help(topic: String?)
    case mode(OutputMode)
    case ping(token: String?)
    case quit
    // Accounts
    case register(name: String, password: String)
    case login(name: String, password: String)
    case logout
    case whoami
    case password(old: String, new: String)
}

/// How a session wants its replies and events written (CONTRACT §3).
public enum OutputMode: String, Sendable, Equatable {
    case text
    case json
}

/// One parsed request line: the optional tag and the typed command.
public struct Request: Sendable, Equatable {
    public let tag: String?
    public let command: Command
    /// The name of the table row that produced it, e.g. "ROOM CREATE".
    public let verb: String
    /// The row says the session must be logged in first.
    public let needsLogin: Bool

    public init(tag: String?, command: Command, verb: String, needsLogin: Bool) {
        self.tag = tag
        self.command = command
        self.verb = verb
        self.needsLogin = needsLogin
    }
}

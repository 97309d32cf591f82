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
    // Rooms (R is an id or a name, resolved against the caller's rooms)
    case rooms
    case roomCreate(name: String)
    case roomShow(room: String)
    case roomRename(room: String, name: String)
    case roomAdd(room: String, user: String)
    case roomRemove(room: String, user: String)
    case roomLeave(room: String)
    case roomRole(room: String, user: String, role: String)
    case roomDelete(room: String)
    case roomInvite(room: String, options: [String: String])
    case roomInvites(room: String)
    case roomUninvite(room: String, code: String)
    case roomJoin(code: String)
    // Tasks
    case taskAdd(room: String, title: String, options: [String: String])
    case taskShow(task: Int64)
    case taskEdit(task: Int64, options: [String: String])
    case taskAssign(task: Int64, user: String?)
    case taskProgress(task: Int64, percent: String)
    case taskDone(task: Int64)
    case taskReopen(task: Int64)
    case taskDelete(task: Int64)
    case tasks(scope: String?, filter: String?)
    // Chat
    case say(room: String, text: String)
    case comment(task: Int64, text: String)
    case history(room: String, limit: String?, before: String?)
    case dm(user: String, text: String)
    // Planning
    case stats(room: String?)
    case calendar(scope: String)
    case sync(after: Int64, limit: Int?)
    // Bots
    case auth(token: String)
    case tokenCreate(label: String)
    case tokenList
    case tokenRevoke(label: String)
    // Server admins
    case adminUsers
    case adminRooms
    case adminStats
    case adminDisable(user: String)
    case adminEnable(user: String)
    case adminKick(user: String)
    case adminDelete(room: Int64)
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

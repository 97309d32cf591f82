/// The session and account rows' commands (CONTRACT §4, Session).
extension Command {
    public struct Help: ParsedCommand {
        /// The words after HELP, joined by one space; nil for none.
        public let topic: String?
        public init(topic: String?) { self.topic = topic }
    }

    public struct Mode: ParsedCommand {
        public let mode: OutputMode
        public init(mode: OutputMode) { self.mode = mode }
    }

    public struct Ping: ParsedCommand {
        public let token: String?
        public init(token: String?) { self.token = token }
    }

    public struct Quit: ParsedCommand {
        public init() {}
    }

    public struct Register: ParsedCommand {
        public let name: String
        public let password: String
        public init(name: String, password: String) {
            self.name = name
            self.password = password
        }
    }

    public struct Login: ParsedCommand {
        public let name: String
        public let password: String
        public init(name: String, password: String) {
            self.name = name
            self.password = password
        }
    }

    public struct Logout: ParsedCommand {
        public init() {}
    }

    public struct WhoAmI: ParsedCommand {
        public init() {}
    }

    public struct Auth: ParsedCommand {
        public let token: String
        public init(token: String) { self.token = token }
    }

    public struct Password: ParsedCommand {
        public let old: String
        public let new: String
        public init(old: String, new: String) {
            self.old = old
            self.new = new
        }
    }
}

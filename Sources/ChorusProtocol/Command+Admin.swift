/// The bot-token and server-admin rows' commands.
extension Command {
    public struct TokenCreate: ParsedCommand {
        public let label: String
        public init(label: String) { self.label = label }
    }

    public struct TokenList: ParsedCommand {
        public init() {}
    }

    public struct TokenRevoke: ParsedCommand {
        public let label: String
        public init(label: String) { self.label = label }
    }

    public struct AdminUsers: ParsedCommand {
        public init() {}
    }

    public struct AdminRooms: ParsedCommand {
        public init() {}
    }

    public struct AdminStats: ParsedCommand {
        public init() {}
    }

    public struct AdminDisable: ParsedCommand {
        public let user: String
        public init(user: String) { self.user = user }
    }

    public struct AdminEnable: ParsedCommand {
        public let user: String
        public init(user: String) { self.user = user }
    }

    public struct AdminKick: ParsedCommand {
        public let user: String
        public init(user: String) { self.user = user }
    }

    public struct AdminDelete: ParsedCommand {
        public let room: Int64
        public init(room: Int64) { self.room = room }
    }
}

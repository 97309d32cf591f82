/// The chat and planning rows' commands.
extension Command {
    public struct Say: ParsedCommand {
        public let room: String
        public let text: String
        public init(room: String, text: String) {
            self.room = room
            self.text = text
        }
    }

    public struct Comment: ParsedCommand {
        public let task: Int64
        public let text: String
        public init(task: Int64, text: String) {
            self.task = task
            self.text = text
        }
    }

    public struct History: ParsedCommand {
        public let room: String
        /// Positive; the handler caps it.
        public let limit: Int?
        public let before: Int64?
        public init(room: String, limit: Int?, before: Int64?) {
            self.room = room
            self.limit = limit
            self.before = before
        }
    }

    public struct DirectMessage: ParsedCommand {
        public let user: String
        public let text: String
        public init(user: String, text: String) {
            self.user = user
            self.text = text
        }
    }

    public struct Stats: ParsedCommand {
        /// nil: every room of the caller's.
        public let room: String?
        public init(room: String?) { self.room = room }
    }

    public struct Calendar: ParsedCommand {
        public let scope: CalendarScope
        public init(scope: CalendarScope) { self.scope = scope }
    }

    /// CALENDAR me: the tasks assigned to the caller in all their rooms, and their personal ones.
    public struct CalendarMe: ParsedCommand {
        public init() {}
    }

    public struct Sync: ParsedCommand {
        public let after: Int64
        /// Positive; the handler caps it.
        public let limit: Int?
        public init(after: Int64, limit: Int?) {
            self.after = after
            self.limit = limit
        }
    }
}

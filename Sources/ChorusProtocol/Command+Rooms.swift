/// Shapes of the room rows. R stays a word: an id or a name that only the caller's rooms
/// can resolve.
extension Command {
    /// ROOM SHOW, LEAVE, DELETE, INVITES.
    public struct Room: ParsedCommand {
        public let room: String
    }

    /// STATS [R]: nil for every room of the caller's.
    public struct Stats: ParsedCommand {
        public let room: String?
    }

    /// ROOM ADD and REMOVE (an account), ROOM UNINVITE (a code), ROOM RENAME (the name).
    public struct RoomWord: ParsedCommand {
        public let room: String
        public let word: String
    }

    /// SAY R TEXT... and DM USER TEXT...
    public struct Message: ParsedCommand {
        public let to: String
        public let text: String
    }

    public struct RoomRole: ParsedCommand {
        public let room: String
        public let user: String
        public let role: RoleName
    }

    public struct RoomInvite: ParsedCommand {
        public let room: String
        /// nil: unlimited.
        public let uses: Int?
        /// nil: the default, 7 days.
        public let expires: DateWord?
    }

    /// READ R EVENT_ID.
    public struct Read: ParsedCommand {
        public let room: String
        public let event: Int64
    }

    /// HISTORY R [LIMIT] [before=ID].
    public struct History: ParsedCommand {
        public let room: String
        /// Positive; the handler caps it.
        public let limit: Int?
        public let before: Int64?
    }

    public struct Calendar: ParsedCommand {
        public let scope: CalendarScope
    }

    /// CALENDAR LINK|UNLINK R|me: `me` is `.mine`.
    public struct CalendarLink: ParsedCommand {
        public let scope: CalendarScope
    }
}

/// The room rows' commands. R stays a word: an id or a name that only the caller's rooms
/// can resolve.
extension Command {
    public struct Rooms: ParsedCommand {
        public init() {}
    }

    public struct RoomCreate: ParsedCommand {
        public let name: String
        public init(name: String) { self.name = name }
    }

    public struct RoomShow: ParsedCommand {
        public let room: String
        public init(room: String) { self.room = room }
    }

    public struct RoomRename: ParsedCommand {
        public let room: String
        public let name: String
        public init(room: String, name: String) {
            self.room = room
            self.name = name
        }
    }

    public struct RoomAdd: ParsedCommand {
        public let room: String
        public let user: String
        public init(room: String, user: String) {
            self.room = room
            self.user = user
        }
    }

    public struct RoomRemove: ParsedCommand {
        public let room: String
        public let user: String
        public init(room: String, user: String) {
            self.room = room
            self.user = user
        }
    }

    public struct RoomLeave: ParsedCommand {
        public let room: String
        public init(room: String) { self.room = room }
    }

    public struct RoomRole: ParsedCommand {
        public let room: String
        public let user: String
        public let role: RoleName
        public init(room: String, user: String, role: RoleName) {
            self.room = room
            self.user = user
            self.role = role
        }
    }

    public struct RoomDelete: ParsedCommand {
        public let room: String
        public init(room: String) { self.room = room }
    }

    public struct RoomInvite: ParsedCommand {
        public let room: String
        /// nil: unlimited.
        public let uses: Int?
        /// nil: the default, 7 days.
        public let expires: DateWord?
        public init(room: String, uses: Int?, expires: DateWord?) {
            self.room = room
            self.uses = uses
            self.expires = expires
        }
    }

    public struct RoomInvites: ParsedCommand {
        public let room: String
        public init(room: String) { self.room = room }
    }

    public struct RoomUninvite: ParsedCommand {
        public let room: String
        public let code: String
        public init(room: String, code: String) {
            self.room = room
            self.code = code
        }
    }

    public struct RoomJoin: ParsedCommand {
        public let code: String
        public init(code: String) { self.code = code }
    }
}

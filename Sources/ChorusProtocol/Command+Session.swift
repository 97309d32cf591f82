/// The commands' shapes, by what they hold. Rows whose arguments are alike share a shape
/// (ROOM SHOW, ROOM LEAVE and ROOM DELETE all build a `Room`); the server routes by the
/// row's name and reads the shape its row builds. Only rows make them.
extension Command {
    /// HELP: the words after it, joined by one space; nil for none.
    public struct Help: ParsedCommand {
        public let topic: String?
    }

    public struct Mode: ParsedCommand {
        public let mode: OutputMode
    }

    public struct Ping: ParsedCommand {
        public let token: String?
    }

    /// A verb without arguments: QUIT, LOGOUT, ROOMS, CALENDAR me...
    public struct Plain: ParsedCommand {}

    /// REGISTER and LOGIN.
    public struct Credentials: ParsedCommand {
        public let name: String
        public let password: String
    }

    /// REGISTER NAME PASSWORD [invite=CODE].
    public struct Registration: ParsedCommand {
        public let name: String
        public let password: String
        /// A room's invite code, as typed.
        public let invite: String?
    }

    public struct Password: ParsedCommand {
        public let old: String
        public let new: String
    }

    /// One word or the line's text: a bot token (AUTH), a token label, an invite code, a
    /// new room's name, an account (ADMIN DISABLE/ENABLE/KICK).
    public struct Word: ParsedCommand {
        public let value: String
    }

    /// PUSH SUBSCRIBE ENDPOINT P256DH AUTH [LABEL], as typed: the server checks them.
    public struct PushSubscribe: ParsedCommand {
        public let endpoint: String
        public let p256dh: String
        public let auth: String
        public let label: String?
    }

    /// TOKEN CREATE LABEL [kind=device|bot].
    public struct TokenCreate: ParsedCommand {
        public let label: String
        public let kind: TokenKind
    }
}

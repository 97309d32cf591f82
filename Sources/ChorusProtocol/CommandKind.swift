/// What a row is, which says where the server runs it: `session` and `account` verbs are
/// answered by the session's loop (accounts with the password hasher), `household` and
/// `admin` verbs run as one job in the database's transaction under the caller's login.
public enum CommandKind: Sendable, Equatable {
    /// HELP, MODE, PING, QUIT.
    case session
    /// Logging in and out, and the password.
    case account
    /// Rooms, tasks, chat, planning and bot tokens.
    case household
    /// ADMIN ...: server admins only (checked by the handler, fresh each time).
    case admin
}

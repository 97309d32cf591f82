import ChorusLocking

/// Who is online and with how many sessions: ROOM SHOW's `online`, ADMIN USERS and
/// ADMIN STATS' `users_online`. Called at login and logout and for those replies, never
/// per event.
///
/// Today every session is in this process (`LocalPresence`). On several nodes each node
/// writes its own counts to shared rows under a lease and reads everyone's
/// (`CLUSTER.md`, Presence); callers see no difference.
protocol Presence: Sendable {
    /// One more session of `user` is logged in.
    func loggedIn(_ user: Int64)
    /// One session of `user` logged out or closed.
    func loggedOut(_ user: Int64)
    /// Users with at least one logged-in session.
    var onlineUsers: Set<Int64> { get }
    var onlineUserCount: Int { get }
}

/// Presence of this process's sessions: a count per account over all loops.
final class LocalPresence: Presence {
    private let sessions = Locked<[Int64: Int]>([:])

    func loggedIn(_ user: Int64) {
        sessions.withLock { $0[user, default: 0] += 1 }
    }

    func loggedOut(_ user: Int64) {
        sessions.withLock { counts in
            counts[user, default: 1] -= 1
            if counts[user] == 0 { counts[user] = nil }
        }
    }

    var onlineUsers: Set<Int64> { sessions.withLock { Set($0.keys) } }
    var onlineUserCount: Int { sessions.withLock { $0.count } }
}

import ChorusLocking

/// Who is online and with how many sessions: ROOM SHOW's `online`, ADMIN USERS and
/// ADMIN STATS' `online`. Called at login and logout and for those replies, never per
/// event, and never waits for a database (the loops call it).
///
/// In one process every session is here (`LocalPresence`). On several nodes
/// (`ClusterPresence`) each node writes its own counts to shared rows under a lease and
/// reads everyone's (`CLUSTER.md`, Presence); callers see no difference, except that
/// `nodes` then lists them.
protocol Presence: Sendable {
    /// One more session of `user` is logged in.
    func loggedIn(_ user: Int64)
    /// One session of `user` logged out or closed.
    func loggedOut(_ user: Int64)
    /// Users with at least one logged-in session.
    var onlineUsers: Set<Int64> { get }
    var onlineUserCount: Int { get }
    /// Every live node with its sessions, by name; nil in one process.
    var nodes: [NodePresence]? { get }
}

extension Presence {
    var nodes: [NodePresence]? { nil }
}

/// One node as ADMIN STATS and ADMIN USERS show it.
struct NodePresence: Sendable, Equatable {
    let name: String
    let isThisNode: Bool
    /// Its open connections, logged in or not.
    let sessions: Int
    /// Logged-in sessions per account.
    let users: [Int64: Int]
    /// Committed events its tail had not delivered at its last heartbeat; nil if unknown.
    let lag: Int64?
    /// Seconds since its last heartbeat (0 for this node: it is counted live).
    let heartbeatAge: Double
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

    /// Logged-in sessions per account.
    var counts: [Int64: Int] { sessions.withLock { $0 } }

    var onlineUsers: Set<Int64> { sessions.withLock { Set($0.keys) } }
    var onlineUserCount: Int { sessions.withLock { $0.count } }
}

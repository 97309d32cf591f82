/// Where nodes that share a store say who is logged in on them, under a lease, and read
/// who is on the others (CLUSTER.md, Presence). Engine-neutral; the server's
/// `ClusterPresence` is its only user. SQLite, one process, has none.
///
/// Threads: one thread at a time (the heartbeat's). Failures throw `StoreError`s
/// (`.unavailable` while the database is away); the board reconnects by itself on a later
/// call and then writes everything again.
public protocol PresenceBoard: AnyObject, Sendable {
    /// This node's name, held by this board alone among the live nodes.
    var node: String { get }
    var timing: PresenceTiming { get }

    /// Renews this node's lease and writes its counts, drops the nodes whose lease ran out
    /// or whose process is gone, and returns every live node, this one included.
    func heartbeat(_ report: NodeReport) throws -> PresenceRound

    /// Removes this node's rows (a clean shutdown: its users stop counting at once) and
    /// closes the connection. Safe to call again.
    func leave()
}

/// How often a node renews its lease, and how long an unrenewed lease counts.
public struct PresenceTiming: Sendable, Equatable {
    /// Seconds between heartbeats.
    public var heartbeat: Double
    /// Seconds a node counts after its last heartbeat.
    public var lease: Double

    public static let standard = PresenceTiming(heartbeat: 2, lease: 10)

    public init(heartbeat: Double, lease: Double) {
        self.heartbeat = heartbeat
        self.lease = lease
    }

    /// Why these values cannot work, or nil: a lease must outlast a few heartbeats.
    public var problem: String? {
        guard heartbeat > 0, heartbeat.isFinite, lease.isFinite else { return "heartbeat and lease must be positive seconds" }
        guard lease >= 2 * heartbeat else { return "the lease (\(lease) s) must be at least two heartbeats (\(heartbeat) s)" }
        return nil
    }
}

/// What a node says about itself at a heartbeat.
public struct NodeReport: Sendable, Equatable {
    /// Connections open on the node, logged in or not.
    public var sessions: Int
    /// Logged-in sessions per account.
    public var users: [Int64: Int]
    /// The last event id the node's tail delivered (nil: it has no tail).
    public var deliveredUpTo: Int64?

    public init(sessions: Int, users: [Int64: Int], deliveredUpTo: Int64?) {
        self.sessions = sessions
        self.users = users
        self.deliveredUpTo = deliveredUpTo
    }
}

/// What one heartbeat found.
public struct PresenceRound: Sendable, Equatable {
    /// Every node with a live lease, by name, this one included.
    public var live: [NodeSnapshot]
    /// Nodes this heartbeat dropped.
    public var retired: [RetiredNode]

    public init(live: [NodeSnapshot], retired: [RetiredNode]) {
        self.live = live
        self.retired = retired
    }
}

/// A node whose lease ran out, or whose process was gone, dropped by this node.
public struct RetiredNode: Sendable, Equatable {
    public var node: String
    /// Its database connections that were still open and were ended.
    public var backendsEnded: Int

    public init(node: String, backendsEnded: Int) {
        self.node = node
        self.backendsEnded = backendsEnded
    }
}

/// A live node as of its last heartbeat.
public struct NodeSnapshot: Sendable, Equatable {
    public var node: String
    public var sessions: Int
    public var users: [Int64: Int]
    /// Committed events its tail had not delivered yet at that heartbeat (nil: unknown).
    public var lag: Int64?
    /// Seconds since that heartbeat, by the database's clock.
    public var heartbeatAge: Double

    public init(node: String, sessions: Int, users: [Int64: Int], lag: Int64?, heartbeatAge: Double) {
        self.node = node
        self.sessions = sessions
        self.users = users
        self.lag = lag
        self.heartbeatAge = heartbeatAge
    }
}

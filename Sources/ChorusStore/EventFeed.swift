/// How a node learns of the events other nodes commit to a shared log (CLUSTER.md, the
/// tail): the counter, the rows after a position, and a doorbell. Engine-neutral; the
/// server's tail (`TailEventBus`) is its only user. SQLite, one process, has none.
///
/// Threads: `interrupt()` may be called from any thread; everything else from one thread
/// at a time (the tail's). Reads that fail throw `StoreError`s (`.unavailable` while the
/// database is away); the feed reconnects by itself on a later call.
public protocol EventFeed: AnyObject, Sendable {
    /// This node's name: the rows it wrote itself are not read back (it has them in memory).
    var node: String { get }

    /// The newest committed id. Every id at or below it has committed, so a read bounded
    /// by it cannot skip one.
    func newestEventID() throws -> Int64

    /// Other nodes' rows (events and session controls) with `after < id <= upTo`, in id
    /// order, at most `limit`. With `includingOwn`, this node's rows too (a commit whose
    /// outcome this node never learnt).
    func records(after: Int64, upTo: Int64, limit: Int, includingOwn: Bool) throws -> [FeedRecord]

    /// Waits up to `timeout` seconds (0: only looks) for another node's doorbell or an
    /// `interrupt()`. A lost connection is waited out as a timeout.
    func waitForDoorbell(timeout: Double) -> FeedWake

    /// Ends the current or next wait at once.
    func interrupt()

    /// Tells the other nodes that this one committed events: a hint, never the data (a
    /// lost doorbell costs a poll interval, not an event).
    func ringDoorbell() throws

    /// Drops the connection; the feed is not used again. Safe to call again.
    func close()
}

extension EventFeed {
    public func records(after: Int64, upTo: Int64, limit: Int) throws -> [FeedRecord] {
        try records(after: after, upTo: upTo, limit: limit, includingOwn: false)
    }
}

/// Why a wait for the doorbell ended.
public enum FeedWake: Sendable, Equatable {
    case doorbell
    case interrupted
    case timedOut
}

/// One row of the shared log as another node reads it.
public struct FeedRecord: Sendable, Equatable {
    public enum Body: Sendable, Equatable {
        /// An event with whom it is delivered to (user ids, as its writer computed them).
        case event(StoredEvent, audience: [Int64])
        /// Sessions to close at this point of the order.
        case control(SessionControl)
    }

    public let id: Int64
    /// The node that wrote it.
    public let node: String
    public let body: Body

    public init(id: Int64, node: String, body: Body) {
        self.id = id
        self.node = node
        self.body = body
    }
}

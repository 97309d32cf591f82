import CLinux
import ChorusLocking
import ChorusStore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL's `EventFeed`: a connection of its own that LISTENs on one channel and
/// reads the other nodes' rows of the log by id (CLUSTER.md, the tail).
///
/// - The doorbell is `pg_notify` in a statement of its own on this connection, never in a
///   data commit (NOTIFY in a commit holds PostgreSQL's global notify lock through it).
///   The session runs with `synchronous_commit = off`, as CLUSTER.md's `SET LOCAL` would:
///   it writes nothing else, and a doorbell lost in a crash costs one poll interval.
/// - Waiting polls the socket and an eventfd together (`interrupt`), so the wait takes no
///   CPU and ends at once for the node's own work. A lost connection is found by the next
///   call, which connects again and LISTENs again.
///
/// Safety (`@unchecked Sendable`): the connection and `ready` are touched only by the one
/// thread the `EventFeed` contract allows; `interrupt` touches only the eventfd, under
/// `closed`'s lock, so never after `close` gave the descriptor back.
public final class PostgresEventFeed: EventFeed, @unchecked Sendable {
    /// The channel every node LISTENs on and rings.
    public static let channel = "chorus_events"

    public let node: String
    private let connection: PostgresConnection
    private let wakeFD: Int32
    /// LISTEN and the settings are in place on the current session.
    private var ready = false
    /// Guards the eventfd: `interrupt` may come from any thread, also after `close`.
    private let closed = Locked(false)
    /// The connection's server process since it last (re)connected.
    private let sessionPID = Atomic<Int32>(0)

    /// Connects and LISTENs. Throws a `StoreError` (`.unavailable` with libpq's reason).
    public init(conninfo: String, node: String) throws {
        self.node = node
        do {
            connection = try PostgresConnection(conninfo, applicationName: "chorusd \(node) tail")
        } catch let error as PostgresError {
            throw error.storeError.doing("opening the event feed")
        }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            connection.close()
            throw StoreError(.failed, message: "eventfd: errno \(errno)")
        }
        do {
            try prepareSession()
        } catch {
            Glibc.close(wakeFD)
            connection.close()
            throw error
        }
    }

    /// The server process of the feed's session (tests end it to cut the connection; the
    /// node's presence row lists it). Any thread may read it.
    public var backendPID: Int32 { sessionPID.load(ordering: .relaxed) }

    public func newestEventID() throws -> Int64 {
        try reading("reading the event counter") {
            try connection.query(EventCounter.last).firstRow().int64(0) ?? 0
        }
    }

    public func records(after: Int64, upTo: Int64, limit: Int, includingOwn: Bool) throws -> [FeedRecord] {
        guard upTo > after, limit > 0 else { return [] }
        return try reading("reading the event log") {
            try connection.query("""
                SELECT id, room, name, by, at, payload, text, audience::text, control, close_token, node FROM events
                 WHERE id > $1 AND id <= $2 AND ($4::boolean OR node <> $3) ORDER BY id LIMIT $5
                """, [.int(after), .int(upTo), .text(node), .bool(includingOwn), .int(Int64(limit))]).rows.map(Self.record)
        }
    }

    public func waitForDoorbell(timeout: Double) -> FeedWake {
        let deadline = Date().addingTimeInterval(max(0, timeout))
        let usable = (try? ensureReady()) != nil
        while true {
            if usable {
                guard let notes = try? connection.takeNotifications() else {
                    ready = false
                    return waitForInterrupt(until: deadline)
                }
                let own = connection.backendPID
                if notes.contains(where: { $0.senderPID != own }) { return .doorbell }
            } else {
                return waitForInterrupt(until: deadline)
            }
            var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)]
            let result = poll(&fds, 2, Self.milliseconds(until: deadline))
            if result < 0 && errno != EINTR { return waitForInterrupt(until: deadline) }
            if fds[0].revents != 0 {
                drainWake()
                return .interrupted
            }
            if result == 0 && Date() >= deadline { return .timedOut }
        }
    }

    public func interrupt() {
        closed.withLock { closed in
            guard !closed else { return }
            var one: UInt64 = 1
            _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, 8) }
        }
    }

    /// One statement in autocommit on this session (`synchronous_commit` off).
    public func ringDoorbell() throws {
        _ = try reading("ringing the doorbell") {
            try connection.execute("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(node)])
        }
    }

    public func close() {
        let first = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard first else { return }
        connection.close()
        closed.withLock { _ in _ = Glibc.close(wakeFD) }
    }

    // MARK: The session

    private func prepareSession() throws {
        do {
            try connection.execute("SELECT set_config('synchronous_commit', 'off', false)")
            try connection.execute("LISTEN \(Self.channel)")
            sessionPID.store(connection.backendPID, ordering: .relaxed)
            ready = true
        } catch let error as PostgresError {
            throw error.storeError.doing("listening for doorbells")
        }
    }

    /// Connects again (and LISTENs again) after the connection broke.
    private func ensureReady() throws {
        if ready && connection.isConnected { return }
        ready = false
        do {
            try connection.reset()
        } catch let error as PostgresError {
            throw error.storeError.doing("reconnecting the event feed")
        }
        try prepareSession()
    }

    private func reading<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        try ensureReady()
        do {
            return try body()
        } catch let error as PostgresError {
            if !connection.isConnected { ready = false }
            throw error.storeError.doing(doing)
        }
    }

    /// With no usable connection: sleeps until the deadline or an interrupt.
    private func waitForInterrupt(until deadline: Date) -> FeedWake {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, Self.milliseconds(until: deadline)) > 0 else { return .timedOut }
        drainWake()
        return .interrupted
    }

    private func drainWake() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { read(wakeFD, $0.baseAddress, 8) }
    }

    private static func milliseconds(until deadline: Date) -> Int32 {
        Int32(max(0, min(60_000, (deadline.timeIntervalSinceNow * 1000).rounded(.up))))
    }

    private static func record(_ row: PostgresRow) throws -> FeedRecord {
        let id = try row.int(0)
        let audience = bigints(row.text(7))
        let node = row.text(10)
        if try row.flag(8) {
            return FeedRecord(id: id, node: node, body: .control(SessionControl(closeUsers: audience, reason: row.text(6),
                                                                                  closeToken: try row.int64(9))))
        }
        let event = StoredEvent(id: id, room: try row.int64(1), name: row.text(2), by: row.string(3), at: row.text(4),
                                payload: row.text(5), text: row.text(6))
        return FeedRecord(id: id, node: node, body: .event(event, audience: audience))
    }

    /// `{1,2,3}`, a bigint[] in text format.
    static func bigints(_ text: String) -> [Int64] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Int64($0) }
    }
}

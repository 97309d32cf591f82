import ChorusLocking
import ChorusStore
import Foundation

/// PostgreSQL's `PresenceBoard`, on a connection of its own (CLUSTER.md, Presence): the
/// UNLOGGED `nodes` row of this node (lease, backend pids, claim) and its `presence` rows,
/// written at each heartbeat, and the other live nodes' rows read back.
///
/// - **The name.** A node holds its `--node` name by its row's `claim`, a token of this
///   process. One statement takes the name (`claimOrRenew`: INSERT … ON CONFLICT DO UPDATE
///   … WHERE the row is ours, its lease ran out, or none of its backends is still
///   connected), so two live processes with one name cannot both hold it, and a restarted
///   node takes its name back at once once the old process's connections are gone.
/// - **Writes** are the changes since the last heartbeat; everything again after a
///   failure or when the row had vanished (a database crash empties UNLOGGED tables, or
///   another node dropped ours). `presence_version` moves with each change, so readers
///   fetch a node's users only when they changed.
/// - **Retiring** (`PostgresPresenceBoard+Reading`): any node drops the rows of a node
///   whose lease ran out or whose backends are all gone, and ends its backends that are
///   still connected (a hung node's LISTEN connection pins the notify queue).
///
/// Safety (`@unchecked Sendable`): everything but `leave`'s flag is touched by the one
/// thread the `PresenceBoard` contract allows.
public final class PostgresPresenceBoard: PresenceBoard, @unchecked Sendable {
    public let node: String
    public let timing: PresenceTiming
    let connection: PostgresConnection
    /// This process's token for the name.
    let claim = UUID().uuidString
    /// The node's other connections (writer, tail), recorded with the lease so that the
    /// node counts as gone once none is connected, and so that they can be ended then.
    private let otherBackendPIDs: @Sendable () -> [Int32]
    private var sessionReady = false
    /// This node's presence rows as the database holds them; nil when unknown.
    private var written: [Int64: Int]?
    private var version: Int64 = 0
    /// Other nodes' users as last read, with the claim and version they were read at.
    var known: [String: (claim: String, version: Int64, users: [Int64: Int])] = [:]
    private let left = Locked(false)

    /// Connects and takes the name, waiting up to `patience` seconds for a previous
    /// process of this name to be gone (its connections close a moment after it dies).
    /// Throws `.duplicate` when a live node holds the name, else a `StoreError` saying why.
    public init(conninfo: String, node: String, timing: PresenceTiming = .standard, patience: Double = 2,
                otherBackendPIDs: @escaping @Sendable () -> [Int32]) throws {
        self.node = node
        self.timing = timing
        self.otherBackendPIDs = otherBackendPIDs
        do {
            connection = try PostgresConnection(conninfo, applicationName: "chorusd \(node) presence")
        } catch let error as PostgresError {
            throw error.storeError.doing("opening the presence connection")
        }
        let deadline = Date().addingTimeInterval(patience)
        do {
            try prepareSession()
            while try !takeName() {
                guard Date() < deadline else { throw try nameTaken() }
                usleep(100_000)
            }
        } catch {
            connection.close()
            throw (error as? PostgresError)?.storeError.doing("taking the node name") ?? error
        }
    }

    /// A connection found broken (the database restarted, or another node ended it) is
    /// made again and the heartbeat tried once more at once.
    public func heartbeat(_ report: NodeReport) throws -> PresenceRound {
        var attempt = 0
        while true {
            attempt += 1
            do {
                try ensureReady()
                try write(report)
                let retired = try retireOthers()
                return PresenceRound(live: try readLive(own: report), retired: retired)
            } catch {
                written = nil
                let lost = !connection.isConnected
                if lost { sessionReady = false }
                if lost && attempt == 1 { continue }
                throw (error as? PostgresError)?.storeError.doing("heartbeat of node \(node)") ?? error
            }
        }
    }

    public func leave() {
        let first = left.withLock { left in
            defer { left = true }
            return !left
        }
        guard first else { return }
        if sessionReady && connection.isConnected {
            _ = try? connection.execute("""
                WITH mine AS (DELETE FROM nodes WHERE node = $1 AND claim = $2 RETURNING node)
                DELETE FROM presence WHERE node IN (SELECT node FROM mine)
                """, [.text(node), .text(claim)])
        }
        connection.close()
    }

    // MARK: This node's rows

    /// Takes the name with no users yet, dropping what a former process of this name left.
    private func takeName() throws -> Bool {
        try connection.transaction { db in
            guard try db.query(Self.claimOrRenew, renewal(NodeReport(sessions: 0, users: [:], deliveredUpTo: nil))).rowCount == 1
            else { return false }
            try db.execute("DELETE FROM presence WHERE node = $1", [.text(node)])
            written = [:]
            return true
        }
    }

    private func nameTaken() throws -> StoreError {
        let age = try connection.query("SELECT extract(epoch FROM now() - heartbeat_at)::float8 FROM nodes WHERE node = $1",
                                       [.text(node)]).rows.first?.double(0) ?? 0
        return StoreError(.duplicate, message: "node name \(node) is in use by another running node on this database "
            + "(its last heartbeat \(String(format: "%.1f", age)) s ago); give this one another --node, or stop that one")
    }

    /// Renews the lease and brings the presence rows up to `report`, in one transaction.
    private func write(_ report: NodeReport) throws {
        let users = report.users
        let before = written
        if before != users { version += 1 }
        try connection.transaction { db in
            let renewed = try db.query(Self.claimOrRenew, renewal(report))
            guard renewed.rowCount == 1 else {
                throw StoreError(.duplicate, message: "node name \(node) is held by another running node: this node's "
                    + "sessions do not count until it stops")
            }
            if try renewed.firstRow().bool(0) == true || before == nil {
                // A new row: the old rows are gone or unknown, so all of them again.
                try db.execute("DELETE FROM presence WHERE node = $1", [.text(node)])
                try upsert(users, db)
            } else if let before, before != users {
                let removed = before.keys.filter { users[$0] == nil }
                if !removed.isEmpty {
                    try db.execute("DELETE FROM presence WHERE node = $1 AND user_id = ANY($2::bigint[])",
                                   [.text(node), .text(Self.array(removed))])
                }
                try upsert(users.filter { before[$0.key] != $0.value }, db)
            }
        }
        written = users
    }

    private func upsert(_ users: [Int64: Int], _ db: PostgresConnection) throws {
        guard !users.isEmpty else { return }
        let ids = Array(users.keys)
        try db.execute("""
            INSERT INTO presence (node, user_id, sessions)
            SELECT $1, u, s FROM unnest($2::bigint[], $3::integer[]) AS t(u, s)
            ON CONFLICT (node, user_id) DO UPDATE SET sessions = EXCLUDED.sessions
            """, [.text(node), .text(Self.array(ids)), .text(Self.array(ids.map { Int64(users[$0] ?? 0) }))])
    }

    /// `claimOrRenew`'s parameters for `report`.
    private func renewal(_ report: NodeReport) -> [PostgresValue] {
        let pids = otherBackendPIDs().filter { $0 > 0 }.map(Int64.init)
        return [.text(node), .text(Self.array(pids)), .text(claim), .int(Int64(report.sessions)),
                report.deliveredUpTo.map { .int($0) } ?? .null, .int(version), .double(timing.lease)]
    }

    /// Writes this node's row if the name is ours to hold: ours already, or its holder's
    /// lease ran out, or none of the holder's backends is still connected. One statement,
    /// so two processes racing for a name are ordered by the row lock. Returns one row
    /// (whether it was inserted) when the name is held, none when refused.
    static let claimOrRenew = """
        INSERT INTO nodes AS n (node, heartbeat_at, backend_pids, claim, sessions, tail_lag, presence_version)
        VALUES ($1, now(), array_append($2::integer[], pg_backend_pid()), $3, $4::integer,
                (SELECT last FROM event_counter) - $5::bigint, $6::bigint)
        ON CONFLICT (node) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at, backend_pids = EXCLUDED.backend_pids,
            claim = EXCLUDED.claim, sessions = EXCLUDED.sessions, tail_lag = EXCLUDED.tail_lag,
            presence_version = EXCLUDED.presence_version
          WHERE n.claim = EXCLUDED.claim
             OR n.heartbeat_at < now() - make_interval(secs => $7::float8)
             OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = ANY(n.backend_pids))
        RETURNING n.xmax = 0
        """

    // MARK: The session

    /// A heartbeat must never wait long: it runs alone on its connection, and its writes
    /// are to UNLOGGED tables, lost in a crash anyway, so no commit waits for a flush.
    private func prepareSession() throws {
        try PostgresSession.configure(connection)
        try connection.execute("SELECT set_config('synchronous_commit', 'off', false)")
        try connection.execute("SELECT set_config('statement_timeout', '5s', false)")
        sessionReady = true
    }

    private func ensureReady() throws {
        if sessionReady && connection.isConnected { return }
        sessionReady = false
        written = nil
        if !connection.isConnected { try connection.reset() }
        try prepareSession()
    }

    /// `{1,2,3}`: an integer array as PostgreSQL reads it from text.
    static func array(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}

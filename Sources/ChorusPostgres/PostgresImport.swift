import ChorusStore

/// The PostgreSQL end of `chorusd copy-to-postgres`: fills an empty database with rows
/// read elsewhere (SQLite's store), ids kept, in one transaction.
///
/// `begin` refuses a database that holds data before it writes anything, then makes or
/// upgrades the schema (the migrations every node runs), opens the transaction, takes the
/// schema's advisory lock (a node starting meanwhile waits for the COMMIT) and the event
/// counter's row, and checks again. `finish` sets what SQLite kept apart from the rows
/// and commits; a failure anywhere before rolls back, leaving the schema empty, so the
/// copy can simply be run again.
public final class PostgresImport {
    /// Why the copy will not run, in words for the person running it.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// What the copy left for new writes: the event counter, and each identity's next id.
    public struct Outcome: Sendable {
        public let lastEventID: Int64
        public let nextIDs: [String: Int64]
    }

    /// The name this program's sessions carry (`pg_stat_activity`).
    static let applicationName = "chorusd copy-to-postgres"
    /// Most rows one UPDATE of held-back references carries.
    static let rowsPerStatement = 1000

    let connection: PostgresConnection
    /// Self-referencing values held back (`ImportedTable.Column.selfReference`), by table:
    /// the row's id, then the held values in column order.
    private var heldBack: [String: [[PostgresValue]]] = [:]
    private var open = false
    private var audience = ImportAudience()

    /// Connects; a failure is a `StoreError` (`unavailable` with libpq's reason).
    public init(conninfo: String) throws {
        do {
            connection = try PostgresConnection(conninfo, applicationName: Self.applicationName)
        } catch let error as PostgresError {
            throw error.storeError
        }
    }

    /// Checks the database is empty, makes the schema, and opens the transaction.
    /// Throws a `Refusal` (nothing written) or a `StoreError`.
    public func begin() throws {
        try failing("checking the database") {
            if try PostgresSchema.version(connection) > 0 { try refuseUnlessEmpty() }
        }
        try PostgresSchema.migrate(connection)
        try failing("opening the copy's transaction") {
            try connection.execute("BEGIN")
            open = true
            try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(PostgresSchema.lockKey)])
            // The counter row to COMMIT: no node can store an event in the copied range.
            try connection.execute("SELECT last FROM event_counter FOR UPDATE")
            try refuseUnlessEmpty()
        }
    }

    /// Copies `rows` (values in `table.columns` order) in with one COPY. The membership
    /// spans must come before the events, whose audience is worked out from them.
    public func insert(_ table: ImportedTable, rows: [[PostgresValue]]) throws {
        let held = table.columns.indices.filter { table.columns[$0].selfReference }
        let column = { (name: String) in table.columns.firstIndex { $0.postgres == name } }
        var rows = rows
        var columns = table.columns.map(\.postgres)
        if !held.isEmpty, let id = column("id") {
            for index in rows.indices where held.contains(where: { rows[index][$0] != .null }) {
                heldBack[table.name, default: []].append([rows[index][id]] + held.map { rows[index][$0] })
                for column in held { rows[index][column] = .null }
            }
        }
        if table.name == "memberships" {
            for row in rows { audience.addSpan(row) }
        }
        if table.name == "events", let id = column("id"), let room = column("room"), let user = column("user_id"),
           let peer = column("peer") {
            for index in rows.indices {
                guard case .int(let event) = rows[index][id] else { continue }
                rows[index].append(audience.audience(id: event, room: rows[index][room], user: rows[index][user],
                                                     peer: rows[index][peer]))
            }
            columns.append("audience")
        }
        try failing("copying \(table.name)") {
            try connection.copyIn(table.name, columns: columns, rows: rows)
        }
    }

    /// Sets the held-back references, the identities (above every copied id and
    /// `floors`, SQLite's `sqlite_sequence`: ids of deleted rows stay used), the event
    /// counter; then commits.
    public func finish(floors: [String: Int64]) throws -> Outcome {
        try failing("finishing the copy") {
            for table in Self.tables {
                guard let rows = heldBack[table.name], !rows.isEmpty else { continue }
                let names = table.columns.filter(\.selfReference).map(\.postgres)
                // Setting a held-back reference is not an edit: the table's own triggers
                // (a task's revision, PostgresMigrations+CalendarFeeds) stay off for it.
                try connection.execute("ALTER TABLE \(table.name) DISABLE TRIGGER USER")
                try setHeldBack(table.name, columns: names, rows: rows)
                try connection.execute("ALTER TABLE \(table.name) ENABLE TRIGGER USER")
            }
            var nextIDs: [String: Int64] = [:]
            for table in Self.tables where table.hasIdentity {
                let used = max(try largestID(table.name), floors[table.name] ?? 0)
                // setval cannot go below 1: an unused sequence is set "not yet called".
                try connection.execute("SELECT setval(pg_get_serial_sequence($1, 'id'), $2::bigint, $3::boolean)",
                                       [.text(table.name), .int(max(used, 1)), .bool(used > 0)])
                nextIDs[table.name] = used + 1
            }
            let last = max(try largestID("events"), floors["events"] ?? 0)
            try connection.execute("UPDATE event_counter SET last = $1", [.int(last)])
            try connection.execute("COMMIT")
            open = false
            heldBack = [:]
            // Fresh statistics for the planner: the tables went from empty to full.
            _ = try? connection.execute("ANALYZE")
            return Outcome(lastEventID: last, nextIDs: nextIDs)
        }
    }

    /// Rolls back whatever was copied and closes the connection.
    public func close() {
        if open, connection.isConnected { _ = try? connection.execute("ROLLBACK") }
        open = false
        connection.close()
    }

    deinit { close() }

    // MARK: Parts

    /// A copied row refers to data a client sees: any row in any table copied, or a
    /// node connected (it may be writing, and its tail would skip what the copy brings).
    private func refuseUnlessEmpty() throws {
        var holding: [String] = []
        for table in Self.tables where try connection.query("SELECT EXISTS (SELECT 1 FROM \(table.name))").firstRow().bool(0) == true {
            holding.append(table.name)
        }
        if !holding.isEmpty {
            throw Refusal(description: "the database already holds data (\(holding.joined(separator: ", "))): "
                + "copy-to-postgres fills only an empty database; nothing was written")
        }
        let nodes = try connection.connectedNodes()
        if !nodes.isEmpty {
            throw Refusal(description: "chorusd is connected to the database (\(nodes.joined(separator: ", "))): "
                + "stop every node before copying; nothing was written")
        }
    }

    private func largestID(_ table: String) throws -> Int64 {
        try connection.query("SELECT coalesce(max(id), 0) FROM \(table)").firstRow().int64(0) ?? 0
    }

    /// UPDATE … FROM (VALUES …): the held values, in chunks.
    private func setHeldBack(_ table: String, columns: [String], rows: [[PostgresValue]]) throws {
        let casts = Array(repeating: "bigint", count: columns.count + 1)
        let settings = columns.map { "\"\($0)\" = v.\"\($0)\"" }.joined(separator: ", ")
        let names = (["id"] + columns).map { "\"\($0)\"" }.joined(separator: ", ")
        let perStatement = Self.rowsPerStatement
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(rows.count, start + perStatement)]
            try connection.execute("UPDATE \(table) t SET \(settings) FROM (VALUES "
                + Self.placeholders(rows: chunk.count, casts: casts) + ") AS v(\(names)) WHERE t.id = v.id",
                Array(chunk.joined()))
            start += chunk.count
        }
    }

    /// `($1::bigint, $2::text), ($3::bigint, $4::text)`, for `rows` rows.
    static func placeholders(rows: Int, casts: [String]) -> String {
        var text = ""
        text.reserveCapacity(rows * casts.count * 12)
        var number = 0
        for row in 0..<rows {
            text += row == 0 ? "(" : ", ("
            for (index, cast) in casts.enumerated() {
                number += 1
                text += index == 0 ? "$\(number)::\(cast)" : ", $\(number)::\(cast)"
            }
            text += ")"
        }
        return text
    }

    /// Runs `body`, a `PostgresError` becoming a `StoreError` that says what was done.
    @discardableResult
    private func failing<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.storeError.doing(doing)
        }
    }
}

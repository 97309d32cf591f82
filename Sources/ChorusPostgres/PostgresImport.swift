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
    /// Most rows one INSERT carries; fewer for a wide table, within libpq's 65,535 parameters.
    static let rowsPerStatement = 1000

    let connection: PostgresConnection
    /// Self-referencing values held back (`ImportedTable.Column.selfReference`), by table:
    /// the row's id, then the held values in column order.
    private var heldBack: [String: [[PostgresValue]]] = [:]
    private var open = false

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
            try connection.execute(EventCounter.hold)
            try refuseUnlessEmpty()
        }
    }

    /// Inserts `rows` (values in `table.columns` order) with multi-row INSERTs.
    public func insert(_ table: ImportedTable, rows: [[PostgresValue]]) throws {
        let held = table.columns.indices.filter { table.columns[$0].selfReference }
        let id = table.columns.firstIndex { $0.postgres == "id" }
        var rows = rows
        if !held.isEmpty, let id {
            for index in rows.indices where held.contains(where: { rows[index][$0] != .null }) {
                heldBack[table.name, default: []].append([rows[index][id]] + held.map { rows[index][$0] })
                for column in held { rows[index][column] = .null }
            }
        }
        let perStatement = max(1, min(Self.rowsPerStatement, 60_000 / table.columns.count))
        let casts = table.columns.map { Self.cast($0.kind) }
        let columns = table.columns.map { "\"\($0.postgres)\"" }.joined(separator: ", ")
        try failing("copying \(table.name)") {
            var start = 0
            while start < rows.count {
                let chunk = rows[start..<min(rows.count, start + perStatement)]
                let sql = "INSERT INTO \(table.name) (\(columns)) VALUES " + Self.placeholders(rows: chunk.count, casts: casts)
                let values = Array(chunk.joined())
                // A full chunk's text repeats: the server plans it once.
                if chunk.count == perStatement {
                    try connection.queryPrepared(sql, values)
                } else {
                    try connection.execute(sql, values)
                }
                start += chunk.count
            }
        }
    }

    /// Sets the held-back references, the identities (above every copied id and
    /// `floors`, SQLite's `sqlite_sequence`: ids of deleted rows stay used), the event
    /// counter and the events' audience; then commits.
    public func finish(floors: [String: Int64]) throws -> Outcome {
        try failing("finishing the copy") {
            for table in Self.tables {
                guard let rows = heldBack[table.name], !rows.isEmpty else { continue }
                let names = table.columns.filter(\.selfReference).map(\.postgres)
                try setHeldBack(table.name, columns: names, rows: rows)
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
            try connection.execute(Self.fillAudience)
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
        let nodes = try connection.query("""
            SELECT DISTINCT application_name FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name LIKE 'chorusd %'
             ORDER BY 1
            """).rows.compactMap { $0.string(0) }
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

    /// The accounts each copied event goes to, as a node stores it when it writes one
    /// (the tail delivers from it): what SYNC returns it to. A personal event's account
    /// and a DM's sender (`peer`); a room event's members whose span covers it.
    static let fillAudience = """
        UPDATE events e SET audience = a.users
          FROM (SELECT id, array_agg(DISTINCT account ORDER BY account) AS users
                  FROM (SELECT id, user_id AS account FROM events WHERE user_id IS NOT NULL
                        UNION ALL SELECT id, peer FROM events WHERE peer IS NOT NULL
                        UNION ALL SELECT r.id, m.user_id FROM events r
                          JOIN memberships m ON m.room = r.room AND r.id >= m.first_event
                                            AND (m.last_event IS NULL OR r.id <= m.last_event)
                         WHERE r.user_id IS NULL AND r.room IS NOT NULL) AS each_one
                 GROUP BY id) AS a
         WHERE e.id = a.id
        """

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

    static func cast(_ kind: ImportedTable.Kind) -> String {
        switch kind {
        case .integer: "bigint"
        case .flag: "boolean"
        case .text: "text"
        case .real: "double precision"
        }
    }

    /// Runs `body`, a `PostgresError` becoming a `StoreError` that says what was done.
    private func failing<T>(_ doing: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.storeError.doing(doing)
        }
    }
}

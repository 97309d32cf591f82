import ChorusCore
import ChorusStore

/// `chorusd after-restore` on PostgreSQL: every identity (`setval`) and the event counter
/// moved to `RestoreRules.counterAfterRestore` of the highest id each is known to have
/// handed out, in one transaction under the schema's advisory lock, so a node starting
/// meanwhile waits for it. Refused while a node is connected: its next write would take
/// an id of the lost tail before the move, and its tail would skip what the move skips.
public enum PostgresAfterRestore {
    /// Why it will not run, in words for the person running it.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// The name this program's session carries (`pg_stat_activity`).
    static let applicationName = "chorusd after-restore"

    public static func run(conninfo: String) throws -> [CounterMove] {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection(conninfo, applicationName: applicationName)
        } catch let error as PostgresError {
            throw error.storeError
        }
        defer { connection.close() }
        do {
            guard try PostgresSchema.version(connection) > 0 else {
                throw Refusal(description: "the database holds no Chorus store: restore the backup into it first")
            }
            try connection.execute("BEGIN")
            do {
                let moves = try move(connection)
                try connection.execute("COMMIT")
                return moves
            } catch {
                if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        } catch let error as PostgresError {
            throw error.storeError.doing("moving the id counters")
        }
    }

    private static func move(_ connection: PostgresConnection) throws -> [CounterMove] {
        try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(PostgresSchema.lockKey)])
        let counted = try connection.query("SELECT last FROM event_counter FOR UPDATE").firstRow().int64(0) ?? 0
        let nodes = try connection.connectedNodes()
        if !nodes.isEmpty {
            throw Refusal(description: "chorusd is connected to the database (\(nodes.joined(separator: ", "))): "
                + "stop every node before after-restore; nothing was changed")
        }
        let tables = try connection.query("""
            SELECT table_name FROM information_schema.columns
             WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'
             ORDER BY table_name
            """).rows.compactMap { $0.string(0) }
        var moves: [CounterMove] = []
        for table in tables {
            // Null for a sequence never used: then its rows (none) are all it handed out.
            let sequence = try connection.query("""
                SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence($1, 'id')::regclass), 0)
                """, [.text(table)]).firstRow().int64(0) ?? 0
            let used = max(sequence, try largestID(connection, table))
            let next = RestoreRules.counterAfterRestore(used: used)
            try connection.execute("SELECT setval(pg_get_serial_sequence($1, 'id'), $2::bigint, true)",
                                   [.text(table), .int(next)])
            moves.append(CounterMove(counter: table, from: used, to: next))
        }
        let used = max(counted, try largestID(connection, "events"))
        let next = RestoreRules.counterAfterRestore(used: used)
        try connection.execute("UPDATE event_counter SET last = $1", [.int(next)])
        moves.append(CounterMove(counter: "event_counter", from: used, to: next))
        return moves
    }

    private static func largestID(_ connection: PostgresConnection, _ table: String) throws -> Int64 {
        try connection.query("SELECT coalesce(max(id), 0) FROM \(table)").firstRow().int64(0) ?? 0
    }
}

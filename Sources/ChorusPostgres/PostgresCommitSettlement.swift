import Foundation

/// What became of a transaction whose COMMIT went out but whose answer never came back
/// (the connection broke): the server knows, by its transaction id, recorded before the
/// COMMIT with `pg_current_xact_id_if_assigned()`.
public enum PostgresCommitSettlement {
    public enum Outcome: Sendable, Equatable {
        case committed
        case aborted
        /// The server could not be asked, or does not remember (`why`).
        case unknown(String)
    }

    /// How long one settlement keeps trying to reach the server, and waits for a former
    /// session that is still running (a network cut: its backend has not noticed yet),
    /// the first time; the batch runner asks again until `PostgresBatchRunner.maxHold`.
    public static let patience: TimeInterval = 5

    /// Reconnects `connection` and asks about `xid`. A former session still in progress
    /// is ended (`pg_terminate_backend`), so its transaction settles one way or the other.
    public static func settle(xid: String, formerBackend: Int32, on connection: PostgresConnection,
                              patience: TimeInterval = patience) -> Outcome {
        let deadline = Date().addingTimeInterval(patience)
        var terminated = false
        while true {
            do {
                if !connection.isConnected {
                    try connection.reset()
                    try PostgresSession.configure(connection)
                }
                switch try status(ofTransaction: xid, on: connection) {
                case "committed": return .committed
                case "aborted": return .aborted
                case "in progress":
                    if !terminated {
                        terminated = true
                        // Only while that process still runs this transaction: its pid
                        // may since belong to another session (backend_xid is 32 bits).
                        _ = try connection.query("""
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                             WHERE pid = $1::int AND backend_xid::text = ($2::xid8::text::numeric % 4294967296)::text
                            """, [.int(Int64(formerBackend)), .text(xid)])
                    }
                case let other:
                    return .unknown("pg_xact_status says \(other ?? "nothing")")
                }
            } catch let error as PostgresError where error.sqlState == "22023" && error.message.contains("in the future") {
                // After a crash, an id above every one the recovered server knows: its
                // COMMIT record never reached the disk (one there would have moved the
                // server's next id past it), so the transaction is gone.
                return .aborted
            } catch {
                if Date() >= deadline { return .unknown("\(error)") }
            }
            if Date() >= deadline { return .unknown("still in progress after \(patience) s") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// `pg_xact_status(xid)`: "committed", "aborted", "in progress", or nil for an id too
    /// old for the server to remember.
    public static func status(ofTransaction xid: String, on connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT pg_xact_status($1::xid8)", [.text(xid)]).firstRow().string(0)
    }
}

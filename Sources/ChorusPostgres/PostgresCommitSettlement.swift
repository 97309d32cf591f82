import Foundation

/// What became of a transaction whose COMMIT went out but whose answer never came back
/// (the connection broke): the server knows, by its transaction id, recorded before the
/// COMMIT with `pg_current_xact_id_if_assigned()`.
///
/// Unless the server crashed meanwhile. Transaction ids are not logged as they are handed
/// out, so a server recovering from a crash hands out again every id whose records never
/// reached the disk: a lost transaction's id then soon names another one, and
/// `pg_xact_status` answers for that one ("committed"). So "committed" is believed only
/// when the transaction's own rows are there: the events it stored, under its ids and its
/// node's name (ids are unique, and no other batch of the node commits while one is held).
/// A transaction that stored no event is believed only if the server has not recovered
/// from a crash since it ran (`PostgresConnection.recoveryMark`); else it cannot be told.
public enum PostgresCommitSettlement {
    public enum Outcome: Sendable, Equatable {
        case committed
        case aborted
        /// The server could not be asked, or does not remember (`why`).
        case unknown(String)
        /// The server recovered from a crash and the transaction stored no event to look
        /// for: asking again cannot tell (`why`).
        case unknowable(String)
    }

    /// What the transaction was and did, for telling its outcome after a server restart.
    public struct Transaction: Sendable, Equatable {
        public let xid: String
        /// The server process that ran it, ended if it still does (`settle`).
        public let backend: Int32
        /// The recovery mark of the server it ran on (`PostgresConnection.recoveryMark`);
        /// nil if never read.
        public let recoveryMark: String?
        /// The ids of the events it stored, and its node's name, which they carry.
        public let eventIDs: [Int64]
        public let node: String

        public init(xid: String, backend: Int32, recoveryMark: String?, eventIDs: [Int64] = [], node: String = "") {
            self.xid = xid
            self.backend = backend
            self.recoveryMark = recoveryMark
            self.eventIDs = eventIDs
            self.node = node
        }
    }

    /// How long one settlement keeps trying to reach the server, and waits for a former
    /// session that is still running (a network cut: its backend has not noticed yet),
    /// the first time; the batch runner asks again until `PostgresBatchRunner.maxHold`.
    public static let patience: TimeInterval = 5

    /// Reconnects `connection` and asks about `transaction`. A former session still in
    /// progress is ended (`pg_terminate_backend`), so its transaction settles one way or
    /// the other.
    public static func settle(_ transaction: Transaction, on connection: PostgresConnection,
                              patience: TimeInterval = patience) -> Outcome {
        let xid = transaction.xid
        let deadline = Date().addingTimeInterval(patience)
        var terminated = false
        while true {
            do {
                if !connection.isConnected { try connection.reset() }
                if connection.recoveryMark == nil { try PostgresSession.configure(connection) }
                switch try status(ofTransaction: xid, on: connection) {
                case "committed":
                    return try committed(transaction, on: connection)
                case "aborted": return .aborted
                case "in progress":
                    if !terminated {
                        terminated = true
                        // Only while that process still runs this transaction: its pid
                        // may since belong to another session (backend_xid is 32 bits).
                        _ = try connection.query("""
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                             WHERE pid = $1::int AND backend_xid::text = ($2::xid8::text::numeric % 4294967296)::text
                            """, [.int(Int64(transaction.backend)), .text(xid)])
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

    /// What a "committed" from `pg_xact_status` means for `transaction`: committed if its
    /// events are stored as it stored them; without events, if the server has not
    /// recovered from a crash since (its recovery mark is the same).
    private static func committed(_ transaction: Transaction, on connection: PostgresConnection) throws -> Outcome {
        guard !transaction.eventIDs.isEmpty else {
            if let mark = transaction.recoveryMark, mark == connection.recoveryMark { return .committed }
            return .unknowable("PostgreSQL may have recovered from a crash since, and transaction \(transaction.xid) "
                + "stored no event to look for")
        }
        let found = try connection.query("SELECT count(*) FROM events WHERE id = ANY($1::bigint[]) AND node = $2",
                                         [.array(transaction.eventIDs.map { String($0) }), .text(transaction.node)])
            .firstRow().int64(0)
        return found == Int64(transaction.eventIDs.count) ? .committed : .aborted
    }

    /// The server's recovery mark now (what `PostgresSession.configure` notes for each
    /// connection), for a `Transaction` made by hand.
    public static func recoveryMark(on connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT " + PostgresSession.recoveryMark).firstRow().string(0)
    }

    /// `pg_xact_status(xid)`: "committed", "aborted", "in progress", or nil for an id too
    /// old for the server to remember.
    public static func status(ofTransaction xid: String, on connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT pg_xact_status($1::xid8)", [.text(xid)]).firstRow().string(0)
    }
}

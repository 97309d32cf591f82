import ChorusStore

/// PostgreSQL's SQLSTATEs, sorted into the store's kinds of failure: the one place that
/// decides what a server error means to Chorus.
extension StoreError {
    /// `connectionLost`: libpq reports the connection as bad (the server went away, the
    /// network broke, or it never connected). Whatever the server said last, later may work.
    public static func kind(ofSQLState sqlState: String?, connectionLost: Bool) -> Kind {
        if connectionLost { return .unavailable }
        guard let sqlState else {
            // No SQLSTATE on a live connection: libpq itself refused (a bad parameter
            // count, a result it could not read). A bug, not the server's state.
            return .failed
        }
        switch sqlState {
        case "23505": return .duplicate  // unique_violation
        case "53100": return .full  // disk_full
        // admin_shutdown, crash_shutdown, cannot_connect_now: the server is stopping or starting.
        case "57P01", "57P02", "57P03": return .unavailable
        // out_of_memory, too_many_connections: the server is short of room now, not full.
        case "53200", "53300": return .unavailable
        // query_canceled (statement_timeout, a cancel), lock_not_available (lock_timeout),
        // idle_in_transaction_session_timeout: the statement waited too long and was
        // rolled back; nothing is wrong with it, so later may work.
        case "57014", "55P03", "25P03": return .unavailable
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return .constraint  // integrity_constraint_violation: checks, foreign keys, NOT NULL
        case "08": return .unavailable  // connection_exception
        default: return .failed
        }
    }
}

extension StoreError {
    /// libpq's and the server's words for "not reached" or "not yet serving": no server
    /// on the port, no route, a name not resolved, a timeout, a server starting, stopping
    /// or out of connection slots. libpq gives no SQLSTATE for a failed connect, so its
    /// (English) text is all there is; a lost connection's SQLSTATE is matched too.
    static let unreachableWords = [
        "Connection refused", "could not connect", "timeout expired", "Connection timed out",
        "could not translate host name", "Name or service not known", "Temporary failure in name resolution",
        "No route to host", "Network is unreachable", "No such file or directory",
        "server closed the connection unexpectedly", "Connection reset by peer", "no connection to the server",
        "the database system is starting up", "the database system is shutting down",
        "the database system is not yet accepting connections", "the database system is in recovery mode",
        "too many clients already", "remaining connection slots are reserved",
        "(SQLSTATE 08", "(SQLSTATE 57P0",
    ]

    /// Whether opening a PostgreSQL store failed because the database could not be reached
    /// now (worth trying again later), rather than because it answered and refused: a
    /// password, a role, a database, `pg_hba.conf`, a schema from a newer chorusd.
    public static func isUnreachable(_ error: any Error) -> Bool {
        let kind: Kind
        let message: String
        switch error {
        case let failure as PostgresError: (kind, message) = (failure.kind, failure.message)
        case let failure as StoreError: (kind, message) = (failure.kind, failure.message)
        default: return false
        }
        guard kind == .unavailable else { return false }
        return unreachableWords.contains { message.localizedCaseInsensitiveContains($0) }
    }
}

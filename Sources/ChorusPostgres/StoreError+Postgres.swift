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

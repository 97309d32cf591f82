/// What every Chorus connection sets once connected (and again after each reconnect,
/// since `reset()` starts a new session).
enum PostgresSession {
    /// A node that stops mid-transaction (hung, SIGSTOPped) holds the event counter and
    /// row locks; the server ends its session after this long idle in a transaction, so
    /// the other nodes go on: every other node's writes wait this long at most. 2 s, as
    /// CLUSTER.md measured: our jobs send statements back to back (hashing happens before
    /// the job), so only a stopped or starved process idles that long, and a false alarm
    /// costs one batch a 503, never data.
    static let idleInTransactionTimeout = "2s"

    /// Also notes the server's recovery mark (`PostgresConnection.recoveryMark`), in the
    /// same round trip: a COMMIT's settlement must know whether the server has recovered
    /// from a crash since. The mark is when the shared statistics were last reset, which
    /// PostgreSQL does at every crash recovery, of the whole server or, after one backend
    /// died, in place (the postmaster's start time stays then), and not at a clean
    /// restart; as seconds, so no session's TimeZone or DateStyle changes its text. A
    /// server that never set it gives its start time instead.
    static func configure(_ connection: PostgresConnection) throws {
        let row = try connection.query("SELECT set_config('idle_in_transaction_session_timeout', $1, false), \(recoveryMark)",
                                       [.text(idleInTransactionTimeout)]).firstRow()
        connection.recoveryMark = row.string(1)
    }

    /// The expression of the recovery mark.
    static let recoveryMark = """
        coalesce((SELECT extract(epoch FROM stats_reset) FROM pg_stat_bgwriter),
                 extract(epoch FROM pg_postmaster_start_time()))::text
        """
}

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

    /// Also notes when the server started (`PostgresConnection.serverStart`), in the same
    /// round trip: a COMMIT's settlement must know whether the server restarted since.
    static func configure(_ connection: PostgresConnection) throws {
        let row = try connection.query("""
            SELECT set_config('idle_in_transaction_session_timeout', $1, false), pg_postmaster_start_time()::text
            """, [.text(idleInTransactionTimeout)]).firstRow()
        connection.serverStart = row.string(1)
    }
}

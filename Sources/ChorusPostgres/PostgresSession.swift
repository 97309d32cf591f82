/// What every Chorus connection sets once connected (and again after each reconnect,
/// since `reset()` starts a new session).
enum PostgresSession {
    /// A node that stops mid-transaction (hung, SIGSTOPped) holds the event counter and
    /// row locks; the server ends its session after this long idle in a transaction, so
    /// the other nodes go on. Our own jobs never sit idle that long between statements.
    static let idleInTransactionTimeout = "5s"

    static func configure(_ connection: PostgresConnection) throws {
        try connection.execute("SELECT set_config('idle_in_transaction_session_timeout', $1, false)",
                               [.text(idleInTransactionTimeout)])
    }
}

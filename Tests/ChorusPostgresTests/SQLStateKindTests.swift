import ChorusPostgres
import ChorusStore
import Testing

/// The SQLSTATE → store kind table, without a server: each row is a rule the server's
/// replies depend on (409 for a taken name, 503 for a full disk, while it is down or a statement timed out).
@Suite struct SQLStateKindTests {
    @Test(arguments: [
        ("23505", StoreError.Kind.duplicate),  // unique_violation
        ("23503", .constraint),  // foreign_key_violation
        ("23514", .constraint),  // check_violation
        ("23502", .constraint),  // not_null_violation
        ("53100", .full),  // disk_full
        ("08006", .unavailable),  // connection_failure
        ("08001", .unavailable),  // sqlclient_unable_to_establish_sqlconnection
        ("57P01", .unavailable),  // admin_shutdown
        ("57P02", .unavailable),  // crash_shutdown
        ("57P03", .unavailable),  // cannot_connect_now
        ("53300", .unavailable),  // too_many_connections
        ("57014", .unavailable),  // query_canceled: statement_timeout
        ("55P03", .unavailable),  // lock_not_available: lock_timeout
        ("25P03", .unavailable),  // idle_in_transaction_session_timeout
        ("42601", .failed),  // syntax_error
        ("42P01", .failed),  // undefined_table
        ("40P01", .failed),  // deadlock_detected: the batch's rerun decides, by SQLSTATE
        ("22P02", .failed),  // invalid_text_representation
    ])
    func kindOfALiveConnectionsError(sqlState: String, kind: StoreError.Kind) {
        #expect(StoreError.kind(ofSQLState: sqlState, connectionLost: false) == kind)
    }

    /// A lost connection is unavailable whatever the server said last (a unique violation
    /// just before the server died still means "try again later", not "name taken").
    @Test(arguments: ["23505", "42601", "53100", nil] as [String?])
    func aLostConnectionIsUnavailable(sqlState: String?) {
        #expect(StoreError.kind(ofSQLState: sqlState, connectionLost: true) == .unavailable)
    }

    /// No SQLSTATE on a live connection: libpq refused on its own, a bug.
    @Test func noSQLStateOnALiveConnectionIsAFailure() {
        #expect(StoreError.kind(ofSQLState: nil, connectionLost: false) == .failed)
    }

    /// The store seam sees the kind, and the SQLSTATE in the message for the log.
    @Test func theStoreErrorKeepsKindAndSQLState() {
        let error = PostgresError(sqlState: "23505", kind: .duplicate, message: "insert: duplicate key")
        #expect(error.storeError.kind == .duplicate)
        #expect(error.storeError.message == "insert: duplicate key (SQLSTATE 23505)")
        #expect(error.storeError.reason == nil)
    }
}

/// The cause a database error names in the log (CONTRACT §12): what an admin fixes, not
/// the store's kind. Before, a wrong password read "store error (unavailable)".
@Suite struct PostgresErrorCauseTests {
    @Test func theCauseIsNamed() {
        let wrongPassword = PostgresError(sqlState: nil, kind: .unavailable, message:
            "cannot connect to PostgreSQL: connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  password authentication failed for user \"chorus\"")
        #expect(wrongPassword.cause == "authentication failed")
        #expect("\(wrongPassword.storeError)".hasPrefix("store error (authentication failed): "))
        #expect(PostgresError(sqlState: "28P01", kind: .failed, message: "x").cause == "authentication failed")
        #expect(PostgresError(sqlState: "42501", kind: .failed, message: "permission denied for schema public").cause == "permission denied")
        #expect(PostgresError(sqlState: "57014", kind: .unavailable, message: "canceling statement").cause == "timeout")
        #expect(PostgresError(sqlState: nil, kind: .unavailable, message: "cannot connect to PostgreSQL: timeout expired").cause == "timeout")
        let refused = PostgresError(sqlState: nil, kind: .unavailable, message: "cannot connect to PostgreSQL: Connection refused")
        #expect(refused.cause == "unreachable")
        #expect(PostgresError(sqlState: "23505", kind: .duplicate, message: "taken").cause == nil)
    }
}

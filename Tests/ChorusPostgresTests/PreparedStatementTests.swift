import ChorusPostgres
import Testing
import ChorusTestSupport

/// Statements prepared once per session, as the store runs all of its own.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct PreparedStatementTests {
    /// The same text with new values reuses the statement; a failing one is not kept;
    /// after the session ends and `reset()` connects again (the server forgot the
    /// statement), it is prepared again rather than named and missing.
    @Test func preparedStatementsSurviveAReconnect() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let db = try PostgresConnection(conninfo)
        try db.execute("CREATE TABLE n (v bigint)")
        let insert = "INSERT INTO n (v) VALUES ($1) RETURNING v"
        #expect(try db.queryPrepared(insert, [.int(1)]).row(0).int64(0) == 1)
        #expect(try db.queryPrepared(insert, [.int(2)]).row(0).int64(0) == 2)
        #expect(throws: PostgresError.self) { try db.queryPrepared("SELECT * FROM no_such_table") }
        #expect(throws: PostgresError.self) { try db.queryPrepared("SELECT * FROM no_such_table") }
        #expect(try db.query("SELECT count(*) FROM pg_prepared_statements").row(0).int64(0) == 1)
        let admin = try PostgresConnection(conninfo)
        _ = try admin.query("SELECT pg_terminate_backend($1::int)", [.int(Int64(db.backendPID))])
        #expect(throws: PostgresError.self) { try db.queryPrepared(insert, [.int(3)]) }
        try db.reset()
        #expect(try db.queryPrepared(insert, [.int(4)]).row(0).int64(0) == 4)
        #expect(try db.query("SELECT array_agg(v ORDER BY v)::text FROM n").row(0).string(0) == "{1,2,4}")
    }
}

import ChorusPostgres
import ChorusStore
import Testing
import ChorusTestSupport

/// A server that goes away under an open connection: reported as unavailable, never a
/// crash, and a reset connects again once a server is there.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ServerLossTests {
    /// `pg_ctl stop -m fast` on a server of the test's own, mid-session.
    @Test func aStoppedServerIsUnavailable() throws {
        let server = try ThrowawayPostgres()
        let db = try PostgresConnection(server.conninfo())
        #expect(try db.query("SELECT 1").row(0).int64(0) == 1)
        server.stop(mode: "fast")
        let error = try #require(throws: PostgresError.self) { try db.query("SELECT 1") }
        #expect(error.kind == .unavailable, "\(error)")
        #expect(!db.isConnected)
        // Again, and inside a transaction: still unavailable, still no crash.
        let again = try #require(throws: PostgresError.self) { try db.transaction { try $0.query("SELECT 1") } }
        #expect(again.kind == .unavailable)
        let reset = try #require(throws: PostgresError.self) { try db.reset() }
        #expect(reset.kind == .unavailable)
    }

    /// Another session ends ours (`pg_terminate_backend`, SQLSTATE 57P01 on our side):
    /// unavailable; `reset()` connects again and work goes on.
    @Test func aTerminatedBackendIsUnavailableAndResetReconnects() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let db = try PostgresConnection(conninfo)
        try db.execute("CREATE TABLE kept (n bigint)")
        try db.execute("INSERT INTO kept VALUES (1)")
        let victim = db.backendPID
        let admin = try PostgresConnection(conninfo)
        #expect(try admin.query("SELECT pg_terminate_backend($1::int)", [.int(Int64(victim))]).row(0).bool(0) == true)
        let error = try #require(throws: PostgresError.self) { try db.query("SELECT count(*) FROM kept") }
        #expect(error.kind == .unavailable, "\(error)")
        #expect(!db.isConnected)
        try db.reset()
        #expect(db.isConnected)
        #expect(db.backendPID != victim)
        #expect(try db.query("SELECT count(*) FROM kept").row(0).int64(0) == 1)
    }

    @Test func aClosedConnectionIsUnavailable() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().conninfo())
        db.close()
        let error = try #require(throws: PostgresError.self) { try db.query("SELECT 1") }
        #expect(error.kind == .unavailable)
    }
}

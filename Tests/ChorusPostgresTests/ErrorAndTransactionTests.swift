import ChorusPostgres
import ChorusStore
import Testing
import ChorusTestSupport

/// Server errors keep their SQLSTATE and land in the right store kind; transactions
/// commit whole or leave nothing.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ErrorAndTransactionTests {
    /// A table with a unique name and a check, in a database of the test's own.
    static func accounts() throws -> PostgresConnection {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().makeDatabase())
        try db.execute("CREATE TABLE account (name text UNIQUE NOT NULL, age bigint CHECK (age >= 0))")
        return db
    }

    @Test func aUniqueViolationIsADuplicate() throws {
        let db = try Self.accounts()
        try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 30])
        let error = try #require(throws: PostgresError.self) { try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 31]) }
        #expect(error.sqlState == "23505")
        #expect(error.kind == .duplicate)
        #expect(error.storeError.kind == .duplicate)
        #expect(error.storeError.message.contains("SQLSTATE 23505"))
        // The connection is still good after a statement error.
        #expect(db.isConnected)
        #expect(try db.query("SELECT count(*) FROM account").row(0).int64(0) == 1)
    }

    @Test func aCheckViolationIsAConstraint() throws {
        let db = try Self.accounts()
        let error = try #require(throws: PostgresError.self) { try db.execute("INSERT INTO account VALUES ($1, $2)", ["bob", -1]) }
        #expect(error.sqlState == "23514")
        #expect(error.kind == .constraint)
        let missing = try #require(throws: PostgresError.self) { try db.execute("INSERT INTO account VALUES ($1, $2)", [nil, 1]) }
        #expect(missing.sqlState == "23502")
        #expect(missing.kind == .constraint)
    }

    @Test func aSyntaxErrorIsAFailure() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().conninfo())
        let error = try #require(throws: PostgresError.self) { try db.query("SELEKT 1") }
        #expect(error.sqlState == "42601")
        #expect(error.kind == .failed)
        #expect(error.message.hasPrefix("SELEKT 1: ERROR:"))
    }

    @Test func aCommittedTransactionIsSeenByAnotherConnection() throws {
        let db = try Self.accounts()
        let count = try db.transaction { db in
            try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 1])
            try db.execute("INSERT INTO account VALUES ($1, $2)", ["bob", 2])
            return try db.query("SELECT count(*) FROM account").row(0).int64(0)
        }
        #expect(count == 2)
        let database = try #require(try db.query("SELECT current_database()").row(0).string(0))
        let other = try PostgresConnection(try ThrowawayPostgres.sharedCluster().conninfo(database: database))
        #expect(try other.query("SELECT count(*) FROM account").row(0).int64(0) == 2)
    }

    struct Abandon: Error {}

    /// The body throws after writing: nothing of it stays, and the connection is ready again.
    @Test func aTransactionRolledBackLeavesNothing() throws {
        let db = try Self.accounts()
        #expect(throws: Abandon.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 1])
                throw Abandon()
            }
        }
        #expect(try db.query("SELECT count(*) FROM account").row(0).int64(0) == 0)
        // A failing statement after a good one: the good one is undone too.
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 1])
                try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 2])
            }
        }
        #expect(error.kind == .duplicate)
        #expect(try db.query("SELECT count(*) FROM account").row(0).int64(0) == 0)
        try db.transaction { db in try db.execute("INSERT INTO account VALUES ($1, $2)", ["cat", 3]) }
        #expect(try db.query("SELECT name FROM account").rows.map { $0.string(0) } == ["cat"])
    }

    /// A body that catches a statement's error and returns normally: PostgreSQL has
    /// aborted the transaction, so COMMIT would roll back; that must not read as success.
    @Test func aSwallowedStatementErrorDoesNotCommit() throws {
        let db = try Self.accounts()
        let error = try #require(throws: PostgresError.self) {
            try db.transaction { db in
                try db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 1])
                _ = try? db.execute("INSERT INTO account VALUES ($1, $2)", ["ann", 2])
            }
        }
        #expect(error.kind == .failed)
        #expect(try db.query("SELECT count(*) FROM account").row(0).int64(0) == 0)
    }
}

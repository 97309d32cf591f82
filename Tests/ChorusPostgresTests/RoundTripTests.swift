import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// Connecting and typed values, against the shared throwaway server.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct RoundTripTests {
    @Test func typedValuesRoundTripIncludingNullAndUnicode() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().makeDatabase())
        try db.execute("CREATE TABLE item (n bigint, t text, d double precision, b boolean)")
        let rows: [[PostgresValue]] = [
            [.int(Int64.max), .text("Küche putzen 🧹 家事"), .double(0.1), .bool(true)],
            [.int(Int64.min), .text(""), .double(-1.5e-300), .bool(false)],
            [.null, .null, .null, .null],
            [.int(0), .text("tab\tnew\nline \\ back"), .double(.infinity), .bool(true)],
        ]
        for row in rows {
            try db.execute("INSERT INTO item VALUES ($1, $2, $3, $4)", row)
        }
        let result = try db.query("SELECT n, t, d, b FROM item ORDER BY n NULLS LAST, t")
        #expect(result.rowCount == 4)
        let read = try result.rows.map { row in
            [try row.int64(0).map(PostgresValue.int) ?? .null, row.string(1).map(PostgresValue.text) ?? .null,
             try row.double(2).map(PostgresValue.double) ?? .null, try row.bool(3).map(PostgresValue.bool) ?? .null]
        }
        #expect(read == [rows[1], rows[3], rows[0], rows[2]])
        // The empty string is not NULL.
        #expect(result.row(0).isNull(1) == false)
        #expect(result.row(3).isNull(1) == true)
    }

    @Test func nanAndNegativeInfinityRoundTrip() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().makeDatabase())
        let row = try db.query("SELECT $1::float8, $2::float8", [.double(.nan), .double(-.infinity)]).row(0)
        #expect(try row.double(0)?.isNaN == true)
        #expect(try row.double(1) == -.infinity)
    }

    /// A value is a value: quotes and a statement inside it are stored as written, and
    /// nothing else runs.
    @Test(arguments: ["'; DROP TABLE note; --", "Robert'); DROP TABLE note;--", "\"$1\" $$ x $$ \\'", "O'Brien"])
    func parametersAreNeverSplicedIntoTheStatement(value: String) throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().makeDatabase())
        try db.execute("CREATE TABLE note (body text)")
        #expect(try db.execute("INSERT INTO note (body) VALUES ($1)", [.text(value)]) == 1)
        let result = try db.query("SELECT body FROM note WHERE body = $1", [.text(value)])
        #expect(result.rowCount == 1)
        #expect(result.row(0).string(0) == value)
        #expect(try db.query("SELECT count(*) FROM note").row(0).int64(0) == 1)
    }

    /// A reader that does not match the column's text says so instead of inventing a value.
    @Test func aMismatchedReadIsAFailureNotAGuess() throws {
        let db = try PostgresConnection(try ThrowawayPostgres.sharedCluster().conninfo())
        let row = try db.query("SELECT 'soon'::text, 2.5::float8").row(0)
        #expect(throws: PostgresError.self) { try row.int64(0) }
        #expect(throws: PostgresError.self) { try row.bool(1) }
        #expect(try row.double(1) == 2.5)
    }

    /// The URI form reaches the same server as `key=value`, and the conninfo's settings win
    /// over our defaults (application_name) while the encoding stays UTF-8.
    @Test func aURIConnectsAndItsSettingsApply() throws {
        let cluster = try ThrowawayPostgres.sharedCluster()
        let db = try PostgresConnection(cluster.url() + "?application_name=chorus-test&client_encoding=LATIN1&connect_timeout=3")
        let row = try db.query("SELECT current_setting('application_name'), current_setting('client_encoding'), current_user").row(0)
        #expect(row.string(0) == "chorus-test")
        #expect(row.string(1) == "UTF8")
        #expect(row.string(2) == "postgres")
        #expect(db.serverVersion >= 150000)
    }

    @Test func aMalformedConnectionStringIsAFailureNotUnavailable() throws {
        let error = try #require(throws: PostgresError.self) { try PostgresConnection("host=127.0.0.1 port") }
        #expect(error.kind == .failed)
        #expect(error.message.contains("invalid connection string"))
    }

    /// Nothing listening on the port: unavailable, with libpq's reason.
    @Test func noServerIsUnavailable() throws {
        let port = try FreePort.next()
        let error = try #require(throws: PostgresError.self) {
            try PostgresConnection("host=127.0.0.1 port=\(port) user=postgres connect_timeout=2")
        }
        #expect(error.kind == .unavailable)
        #expect(error.sqlState == nil)
        #expect(error.message.contains("\(port)"))
    }
}

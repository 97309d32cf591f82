import ChorusCore
import Foundation
import Testing
@testable import ChorusSQLite
import ChorusStore

/// SQLite only: the connection, its statements, migrations and files.
@Suite struct DatabaseTests {
    let dir: TempDirectory

    init() throws { dir = try TempDirectory() }

    /// A new file gets every migration and user_version equal to their count.
    @Test func migrationsFromEmpty() throws {
        let db = try Database(path: dir.path())
        #expect(try db.schemaVersion == Migrations.all.count)
        #expect(try db.strings("SELECT name FROM sqlite_master WHERE type = 'table'").contains("users"))
    }

    /// Reopening applies nothing twice and keeps the data.
    @Test func reopenKeepsData() throws {
        let path = dir.path()
        let first = try Database(path: path)
        _ = try first.createAccount(name: "alice", passwordHash: "h", created: "2024-01-01T00:00:00Z")
        first.close()

        let second = try Database(path: path)
        #expect(try second.schemaVersion == Migrations.all.count)
        #expect(try second.migrate(Migrations.all) == 0)
        #expect(try second.account(named: "alice")?.passwordHash == "h")
    }

    /// A failing migration leaves the schema and user_version as they were.
    @Test func failedMigrationRollsBack() throws {
        let db = try Database(path: dir.path())
        let broken = Migrations.all + ["CREATE TABLE extra (x INTEGER) STRICT; CREATE TABLE ("]
        #expect(throws: StoreError.self) { try db.migrate(broken) }
        #expect(try db.schemaVersion == Migrations.all.count)
        #expect(try db.strings("SELECT name FROM sqlite_master WHERE name = 'extra'").isEmpty)
    }

    /// A file from a newer program is refused rather than misread.
    @Test func newerSchemaRefused() throws {
        let path = dir.path()
        let db = try Database(path: path)
        try db.execute("PRAGMA user_version = 999")
        db.close()
        let error = #expect(throws: StoreError.self) { try Database(path: path) }
        #expect(error?.message.contains("newer") == true)
    }

    /// The connection runs in WAL mode with foreign keys on and synchronous FULL.
    @Test func pragmas() throws {
        let db = try Database(path: dir.path())
        #expect(try db.strings("PRAGMA journal_mode") == ["wal"])
        #expect(try db.integer("PRAGMA foreign_keys") == 1)
        #expect(try db.integer("PRAGMA synchronous") == 2)
        #expect(try db.integer("PRAGMA busy_timeout") == 5000)
    }

    /// Every value kind comes back as bound, and empty text or blob never turns into NULL.
    @Test func valuesRoundTrip() throws {
        let db = try Database(path: dir.path())
        try db.execute("CREATE TABLE v (n INTEGER PRIMARY KEY, x ANY) STRICT")
        let values: [Statement.Value] = [
            .null, .integer(-42), .integer(Int64.max), .real(2.5), .text(""), .text("zoë 🎶"),
            .text("a\u{0}b"), .blob([]), .blob([0, 1, 255]), .init(Optional<String>.none), .init(true),
        ]
        let insert = try db.prepare("INSERT INTO v (x) VALUES (?1)")
        for value in values { try insert.run(value) }
        let back = try db.prepare("SELECT x FROM v ORDER BY n").rows { $0.value(0) }
        #expect(back == values)
        #expect(try db.prepare("SELECT x FROM v WHERE n = ?1").row(5) { $0.optionalText(0) } == "")
        #expect(try db.prepare("SELECT x FROM v WHERE n = ?1").row(1) { $0.optionalText(0) } == .some(nil))
    }

    /// Bound text is data, never SQL, however it looks.
    @Test func bindNeverPastes() throws {
        let db = try Database(path: dir.path())
        let name = "x'); DROP TABLE users; --"
        let made = try db.createAccount(name: name, passwordHash: "h", created: "now")
        #expect(try db.account(named: name) == made)
        #expect(try db.accountCount() == 1)
        #expect(try db.strings("SELECT name FROM users") == [name])
    }

    /// A wrong number of values is an error, not a silent NULL.
    @Test func bindCountChecked() throws {
        let db = try Database(path: dir.path())
        let statement = try db.prepare("SELECT ?1 + ?2")
        let error = #expect(throws: StoreError.self) { try statement.bind(1) }
        #expect(error?.message.contains("expects 2 values") == true)
        #expect(error?.kind == .failed)
        #expect(try statement.row(1, 2) { $0.int(0) } == 3)
    }

    /// prepare refuses text holding more than one statement instead of dropping the rest.
    @Test func prepareTakesOneStatement() throws {
        let db = try Database(path: dir.path())
        #expect(throws: StoreError.self) { try db.prepare("SELECT 1; DROP TABLE users") }
        #expect(try db.prepare("SELECT 1;  ").row { $0.int(0) } == 1)
    }

    /// The same query used inside its own row loop gets a separate statement.
    @Test func nestedSameQuery() throws {
        let db = try Database(path: dir.path())
        let sql = "SELECT value FROM json_each('[1,2,3]') WHERE value >= ?1"
        let pairs = try db.prepare(sql).rows(2) { row in
            (row.int(0), try db.prepare(sql).rows(.integer(row.int(0))) { $0.int(0) })
        }
        #expect(pairs.map(\.0) == [2, 3])
        #expect(pairs.map(\.1) == [[2, 3], [3]])
    }

    /// A throwing savepoint undoes only its own changes; the outer transaction commits.
    @Test func savepointRollbackKeepsOuter() throws {
        let db = try Database(path: dir.path())
        try db.execute("CREATE TABLE t (x TEXT) STRICT")
        let insert = "INSERT INTO t (x) VALUES (?1)"
        try db.transaction {
            try db.prepare(insert).run("a")
            #expect(throws: ChorusError.self) {
                try db.savepoint {
                    try db.prepare(insert).run("b")
                    throw ChorusError(422, "no")
                }
            }
            try db.prepare(insert).run("c")
        }
        #expect(try db.strings("SELECT x FROM t ORDER BY x") == ["a", "c"])
        #expect(!db.isInTransaction)
    }

    /// A throwing transaction keeps nothing; a nested one acts as a savepoint.
    @Test func transactionRollsBack() throws {
        let db = try Database(path: dir.path())
        try db.execute("CREATE TABLE t (x TEXT) STRICT")
        #expect(throws: ChorusError.self) {
            try db.transaction {
                try db.prepare("INSERT INTO t (x) VALUES ('a')").run()
                try db.transaction { try db.prepare("INSERT INTO t (x) VALUES ('b')").run() }
                throw ChorusError(409, "stop")
            }
        }
        #expect(try db.integer("SELECT count(*) FROM t") == 0)
        #expect(!db.isInTransaction)
    }

    /// A folder that cannot exist gives a StoreError naming the path.
    @Test func badPathThrows() throws {
        let file = dir.path("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let path = file + "/sub/chorus.sqlite"
        let error = #expect(throws: StoreError.self) { try Database(path: path) }
        #expect(error?.message.contains(path) == true)
        #expect(error?.kind == .unavailable)
    }

    /// After close, use throws instead of crashing, and close can be repeated.
    @Test func closedDatabaseThrows() throws {
        let db = try Database(path: dir.path())
        let statement = try db.prepare("SELECT 1")
        db.close()
        db.close()
        #expect(throws: StoreError.self) { try db.prepare("SELECT 1") }
        #expect(throws: StoreError.self) { try statement.step() }
    }
}

@testable import ChorusPostgres
import ChorusStore
import Dispatch
import ChorusLocking
import Testing
import ChorusTestSupport

/// The schema made at open: safely by several nodes at once, refused when newer than the
/// program, and a clear error when the database cannot be reached.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct PostgresSchemaTests {
    /// Six nodes starting at once on an empty database: every one opens (without the
    /// advisory lock, concurrent CREATE TABLEs fail with duplicate type names), and the
    /// schema is made once.
    @Test func severalNodesMigrateAtOnce() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let failures = Locked<[String]>([])
        let queues = Locked<[PostgresQueue]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { node in
            do {
                let queue = try PostgresQueue(conninfo: conninfo, node: "node\(node)")
                queues.withLock { $0.append(queue) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let opened = queues.withLock { $0 }
        #expect(opened.count == 6)
        for queue in opened { queue.close() }
        let db = try PostgresConnection(conninfo)
        #expect(try db.query("SELECT version FROM schema_version").row(0).int64(0) == Int64(PostgresMigrations.all.count))
        #expect(try db.query("SELECT count(*), max(last) FROM event_counter").row(0).int64(0) == 1)
        let tables = try db.query("""
            SELECT count(*) FROM pg_class WHERE relname IN ('nodes', 'presence') AND relpersistence = 'u'
            """).row(0).int64(0)
        #expect(tables == 2, "nodes and presence are UNLOGGED")
        #expect(try db.query("SELECT to_regclass('login_failures') IS NOT NULL").row(0).bool(0) == true)
    }

    /// A database a newer program upgraded is refused with both versions named, and left as it was.
    @Test func aNewerSchemaIsRefused() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        try PostgresQueue(conninfo: conninfo, node: "old").close()
        let db = try PostgresConnection(conninfo)
        try db.execute("UPDATE schema_version SET version = 99")
        let error = try #require(throws: StoreError.self) { try PostgresQueue(conninfo: conninfo, node: "old") }
        #expect(error.kind == .failed)
        #expect(error.message.contains("version 99") && error.message.contains("(\(PostgresMigrations.all.count))"), "\(error)")
        #expect(try db.query("SELECT version FROM schema_version").row(0).int64(0) == 99)
    }

    /// Nothing listening, or no such database: unavailable, with libpq's reason.
    @Test func anUnreachableDatabaseIsUnavailable() throws {
        let port = try FreePort.next()
        let none = try #require(throws: StoreError.self) {
            try PostgresQueue(conninfo: "host=127.0.0.1 port=\(port) user=postgres connect_timeout=2", node: "n")
        }
        #expect(none.kind == .unavailable && none.message.contains("\(port)"), "\(none)")
        let cluster = try ThrowawayPostgres.sharedCluster()
        let missing = try #require(throws: StoreError.self) {
            try PostgresQueue(conninfo: cluster.conninfo(database: "no_such_database"), node: "n")
        }
        #expect(missing.kind == .unavailable && missing.message.contains("no_such_database"), "\(missing)")
        let malformed = try #require(throws: StoreError.self) { try PostgresQueue(conninfo: "host=127.0.0.1 port", node: "n") }
        #expect(malformed.kind == .failed)
    }
}

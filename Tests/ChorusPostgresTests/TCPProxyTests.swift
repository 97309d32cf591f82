import CPostgres
import ChorusLocking
import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// The cluster tests' TCP proxy in front of a real PostgreSQL: queries pass, `cut()`
/// breaks connections, `stall()` holds bytes until `resume()`, and `dropNotifications`
/// takes NotificationResponse messages out of the server's stream and nothing else.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct TCPProxyTests {
    /// `conninfo` (key=value) pointed at the proxy instead of the server.
    static func throughProxy(_ conninfo: String, _ proxy: TCPProxy) -> String {
        conninfo.replacingOccurrences(of: "port=\(proxy.targetPort)", with: "port=\(proxy.port)")
    }

    static func proxyAndDatabase() throws -> (proxy: TCPProxy, direct: String, proxied: String) {
        let server = try ThrowawayPostgres.sharedCluster()
        let direct = try server.makeDatabase()
        let proxy = try TCPProxy(port: server.port)
        return (proxy, direct, throughProxy(direct, proxy))
    }

    @Test func queriesPassThroughAndStopEndsEverything() throws {
        let (proxy, _, proxied) = try Self.proxyAndDatabase()
        let db = try PostgresConnection(proxied)
        try db.execute("CREATE TABLE t (n bigint, s text)")
        // Rows bigger than one read, so messages span chunks both ways.
        let big = String(repeating: "x", count: 200_000)
        for n in 0..<5 { try db.execute("INSERT INTO t VALUES ($1, $2)", [.int(Int64(n)), .text(big)]) }
        let result = try db.query("SELECT n, s FROM t ORDER BY n")
        #expect(result.rowCount == 5)
        #expect(result.rows.allSatisfy { $0.string(1) == big })
        #expect(proxy.connectionCount == 1)
        proxy.stop()
        #expect(proxy.connectionCount == 0)
        let error = try #require(throws: PostgresError.self) { try db.query("SELECT 1") }
        #expect(error.kind == .unavailable, "\(error)")
        #expect(throws: PostgresError.self) { try PostgresConnection(proxied) }
    }

    /// Cut: the open connection fails as unavailable; a new one (a reset) gets through.
    @Test func cutBreaksOpenConnectionsAndLetsNewOnesIn() throws {
        let (proxy, _, proxied) = try Self.proxyAndDatabase()
        let db = try PostgresConnection(proxied)
        let other = try PostgresConnection(proxied)
        #expect(try db.query("SELECT 1").row(0).int64(0) == 1)
        #expect(proxy.connectionCount == 2)
        proxy.cut()
        #expect(proxy.connectionCount == 0)
        for connection in [db, other] {
            let error = try #require(throws: PostgresError.self) { try connection.query("SELECT 1") }
            #expect(error.kind == .unavailable, "\(error)")
        }
        try db.reset()
        #expect(try db.query("SELECT 2").row(0).int64(0) == 2)
        #expect(proxy.connectionCount == 1)
    }

    /// Stall: a query sent meanwhile is not answered (its connection stays open) until
    /// resume, and then it is.
    @Test func stallHoldsAQueryUntilResume() throws {
        let (proxy, _, proxied) = try Self.proxyAndDatabase()
        let connected = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let answered = DispatchSemaphore(value: 0)
        let answer = Locked<Result<Int64, PostgresError>?>(nil)
        // The connection lives on its own thread: it is not Sendable.
        let thread = Thread {
            do {
                let db = try PostgresConnection(proxied)
                connected.signal()
                // Bounded: nobody signals it if the test gave up.
                _ = go.wait(timeout: .now() + 60)
                let value = try db.query("SELECT 40 + 2").row(0).int64(0) ?? -1
                answer.withLock { $0 = .success(value) }
            } catch {
                answer.withLock { $0 = .failure(error as? PostgresError ?? PostgresError(sqlState: nil, kind: .failed, message: "\(error)")) }
                connected.signal()
            }
            answered.signal()
        }
        thread.start()
        try #require(connected.wait(timeout: .now() + 60) == .success, "no connection through the proxy")
        proxy.stall()
        go.signal()
        #expect(answered.wait(timeout: .now() + 1.5) == .timedOut, "the query was answered through a stalled proxy")
        #expect(proxy.connectionCount == 1)
        proxy.resume()
        #expect(answered.wait(timeout: .now() + 20) == .success)
        #expect(try answer.withLock { $0 }?.get() == 42)
    }

    /// A stall by application name holds only the connections named so: the other one
    /// still answers, and the held query is answered after resume.
    @Test func aStallByNameHoldsOnlyThatConnection() throws {
        let (proxy, _, proxied) = try Self.proxyAndDatabase()
        let writer = try PostgresConnection(proxied, applicationName: "chorusd n1")
        let connected = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), answered = DispatchSemaphore(value: 0)
        let answer = Locked<Int64?>(nil)
        let thread = Thread {
            guard let feed = try? PostgresConnection(proxied, applicationName: "chorusd n1 tail") else {
                connected.signal()
                return
            }
            connected.signal()
            // Bounded: nobody signals it if the test gave up.
            _ = go.wait(timeout: .now() + 60)
            answer.withLock { $0 = try? feed.query("SELECT 7").row(0).int64(0) }
            answered.signal()
        }
        thread.start()
        try #require(connected.wait(timeout: .now() + 60) == .success, "no connection through the proxy")
        #expect(try writer.query("SELECT 1").row(0).int64(0) == 1, "the writer's startup has passed the proxy")
        #expect(proxy.stall(applicationName: { $0.hasSuffix(" tail") }) == 1)
        go.signal()
        #expect(answered.wait(timeout: .now() + 1.5) == .timedOut, "the stalled connection was answered")
        #expect(try writer.query("SELECT 2").row(0).int64(0) == 2, "the other connection was stalled too")
        proxy.resume()
        #expect(answered.wait(timeout: .now() + 20) == .success)
        #expect(answer.withLock { $0 } == 7)
    }

    /// While notifications are dropped a LISTENer hears none of them (its queries still
    /// work); once turned off it hears the next. With and without libpq's SSLRequest
    /// first (answered by one bare byte), so the stream is followed either way.
    @Test(arguments: ["", " sslmode=disable"])
    func droppedNotificationsNeverArriveAndLaterOnesDo(_ extra: String) throws {
        let (proxy, direct, proxied) = try Self.proxyAndDatabase()
        let listener = try RawListener(proxied + extra)
        try listener.execute("LISTEN chorus_test")
        let notifier = try PostgresConnection(direct)

        proxy.dropNotifications(true)
        for payload in ["dropped-1", "dropped-2"] {
            try notifier.execute("SELECT pg_notify('chorus_test', $1)", [.text(payload)])
        }
        // The server sends a listener its notifications before the answer to the next
        // query at the latest: after this round trip they would be here.
        try listener.execute("SELECT 1")
        #expect(listener.waitForNotification(timeout: 0.5) == nil)

        proxy.dropNotifications(false)
        try notifier.execute("SELECT pg_notify('chorus_test', $1)", [.text("heard")])
        #expect(listener.waitForNotification(timeout: 20) == "heard")
        #expect(listener.waitForNotification(timeout: 0.2) == nil)
    }
}

/// A bare libpq connection for LISTEN (the wrapper does not read notifications).
final class RawListener {
    private let connection: OpaquePointer

    init(_ conninfo: String) throws {
        guard let connection = PQconnectdb(conninfo) else { throw Failure(description: "out of memory") }
        self.connection = connection
        guard PQstatus(connection) == CONNECTION_OK else {
            throw Failure(description: String(cString: PQerrorMessage(connection)))
        }
    }

    deinit { PQfinish(connection) }

    func execute(_ sql: String) throws {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw Failure(description: String(cString: PQerrorMessage(connection)))
        }
    }

    /// The next notification's payload, waiting up to `timeout` seconds for one.
    func waitForNotification(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            _ = PQconsumeInput(connection)
            if let notification = PQnotifies(connection) {
                defer { PQfreemem(notification) }
                return String(cString: notification.pointee.extra)
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var watched = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
            _ = poll(&watched, 1, Int32(left * 1000) + 1)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}

import ChorusPostgres
import Foundation
import Synchronization
import Testing

/// A PostgreSQL server of the tests' own: `initdb` into a temporary folder, started with
/// `pg_ctl` on a free loopback port with its socket in that folder, fsync on, trust
/// authentication for loopback only. Stopped and removed when released, and by a watchdog
/// process when this test process ends in any way (the shared one is never released).
public final class ThrowawayPostgres: Sendable {
    public let tools: PostgresTools
    public let folder: String
    public let port: Int
    private var dataFolder: String { folder + "/data" }
    private let watchdog: pid_t
    private let stopped = Mutex(false)

    /// Whether the PostgreSQL tests run: where the server programs are missing they are
    /// skipped, except under CI, where `sharedCluster()` then fails the test instead.
    public static var canRun: Bool {
        if case .success = PostgresTools.found { return true }
        return ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// Why the PostgreSQL tests are skipped here, as the skip says it.
    public static var skipReason: Comment {
        if case .failure(let missing) = PostgresTools.found { return Comment(rawValue: "\(missing)") }
        return "PostgreSQL tests skipped"
    }

    /// One cluster for the whole test process, started by the first test that asks.
    public static func sharedCluster() throws -> ThrowawayPostgres { try shared.get() }
    private static let shared = Result<ThrowawayPostgres, any Error> { try ThrowawayPostgres() }

    public init() throws {
        tools = try PostgresTools.found.get()
        folder = NSTemporaryDirectory() + "chorus-pg-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        if let user = tools.user { chown(folder, user.uid, user.gid) }
        watchdog = try Self.startWatchdog(folder: folder, tools: tools)
        do {
            // --no-sync: only initdb's own final flush is skipped; the server runs with fsync on.
            try tools.run("initdb", ["-D", folder + "/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
                                     "--no-locale", "--no-sync"], in: folder)
            let settings = """

                listen_addresses = '127.0.0.1'
                unix_socket_directories = '\(folder)'
                fsync = on
                synchronous_commit = on
                max_connections = 100
                shared_buffers = 16MB
                """
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/data/postgresql.conf"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(settings.utf8))
            try handle.close()
            port = try Self.start(tools: tools, data: folder + "/data", in: folder)
        } catch {
            kill(watchdog, SIGTERM)
            try? tools.run("pg_ctl", ["stop", "-D", folder + "/data", "-m", "immediate"], in: folder)
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    deinit {
        stop(mode: "immediate")
        kill(watchdog, SIGTERM)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// A libpq `key=value` string for `database` on this server.
    public func conninfo(database: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) user=postgres dbname=\(database)"
    }

    /// The same as a libpq URI.
    public func url(database: String = "postgres") -> String {
        "postgresql://postgres@127.0.0.1:\(port)/\(database)"
    }

    /// A new, empty database of a test's own; its conninfo.
    public func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(conninfo())
        try admin.execute("CREATE DATABASE \(name)")
        return conninfo(database: name)
    }

    /// `pg_ctl stop` with `mode` ("fast": sessions are ended; "immediate": no shutdown
    /// checkpoint). Once stopped it stays stopped.
    public func stop(mode: String) {
        guard stopped.withLock({ was in defer { was = true }; return !was }) else { return }
        try? tools.run("pg_ctl", ["stop", "-D", dataFolder, "-m", mode, "-w"], in: folder)
    }

    /// Starts a stopped server again, on the same port and data: a test's own server
    /// coming back after an outage.
    public func start() throws {
        try tools.run("pg_ctl", ["start", "-D", dataFolder, "-l", folder + "/server.log", "-w", "-t", "60",
                                 "-o", "-p \(port)"], in: folder)
        stopped.withLock { $0 = false }
    }

    /// Starts the server on a free port, trying another if one was taken meanwhile;
    /// `pg_ctl -w` returns once the server accepts connections.
    private static func start(tools: PostgresTools, data: String, in folder: String) throws -> Int {
        var lastError: (any Error)?
        for _ in 0..<3 {
            let port = try FreePort.next()
            do {
                try tools.run("pg_ctl", ["start", "-D", data, "-l", folder + "/server.log", "-w", "-t", "60",
                                         "-o", "-p \(port)"], in: folder)
                return port
            } catch {
                lastError = error
            }
        }
        let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
        throw PostgresTools.CommandFailed(description: "PostgreSQL did not start: \(lastError.map { "\($0)" } ?? "") \(log)")
    }

    /// A shell that waits for this process to end, however it ends, then stops the server
    /// and removes the folder: a crashed or killed test run leaves nothing running.
    private static func startWatchdog(folder: String, tools: PostgresTools) throws -> pid_t {
        let (program, arguments) = tools.commandLine("pg_ctl", ["stop", "-D", folder + "/data", "-m", "immediate"])
        let stop = ([program] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop) >/dev/null 2>&1; rm -rf '\(folder)'"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process.processIdentifier
    }
}

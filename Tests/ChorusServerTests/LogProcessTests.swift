import ChorusPostgres
import ChorusClient
import Foundation
import Glibc
import Testing
import ChorusTestSupport

/// chorusd's standard error as operators wire it: a pipe whose reader left, a pipe nobody
/// reads, and the logfmt lines it writes (CONTRACT §12): logins, failed logins, throttles,
/// closes by a limit.
@Suite(.timeLimit(.minutes(10))) struct LogProcessTests {
    static let password = "correct horse battery staple"

    /// A chorusd whose standard error is read as it comes (unlike `ProcessTests.Daemon`).
    final class LoggedDaemon {
        let daemon: ProcessTests.Daemon
        let stderr = ChorusRun.Capture()
        let directory: TemporaryDirectory

        init(_ flags: [String]) throws {
            directory = try TemporaryDirectory()
            daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"] + flags,
                                             in: directory.path)
            stderr.drain(daemon.errors)
            #expect(try daemon.waitUntilListening())
        }

        var port: Int { daemon.port }
        var certificate: String { directory.path + "/certs/server.crt" }

        func client() throws -> TestClient {
            try TestClient(port: port, certificatePath: certificate)
        }

        /// A JSON-mode session of a new account.
        func device(_ name: String) throws -> Device {
            let client = try client()
            #expect(try client.last("REGISTER \(name) \"\(LogProcessTests.password)\"").hasPrefix("OK"))
            return try Device(client: client, user: name, label: name)
        }

        /// A JSON-mode session of a new account made a server admin.
        func admin(_ name: String) throws -> Device {
            let device = try device(name)
            #expect(try ProcessTests.run(["admin", "grant", name, "--data", "data"], in: directory.path).status == 0)
            return device
        }

        /// Waits until a line of standard error contains every one of `parts`.
        func waitForLine(containing parts: [String], timeout: Double = 30) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            repeat {
                let lines = stderr.text.split(separator: "\n").map(String.init)
                if let line = lines.first(where: { line in parts.allSatisfy { line.contains($0) } }) { return line }
                Thread.sleep(forTimeInterval: 0.05)
            } while Date() < deadline
            return nil
        }

        func stop() {
            daemon.process.terminate()
            daemon.process.expectExit(within: 60)
        }
    }

    /// ADMIN STATS' count of sessions closed by `limit`.
    static func closed(by limit: String, _ admin: Device) throws -> Int {
        let stats = try admin.ok("ADMIN STATS")
        return (stats["closed_by_limit"] as? JSON)?[limit] as? Int ?? -1
    }

    /// Standard error on a pipe whose reader is gone (`chorusd 2> >(tee log)` after Ctrl-C):
    /// each log line fails with EPIPE. Before, the first one killed the server (SIGILL from
    /// FileHandle.write); now it is dropped, counted in ADMIN STATS, and the server serves on.
    @Test func aClosedStandardErrorCostsLogLinesNotTheServer() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        try daemon.errors.fileHandleForReading.close()
        let certificate = directory.path + "/certs/server.crt"
        // Each REGISTER logs a line.
        for index in 0..<3 {
            let client = try TestClient(port: daemon.port, certificatePath: certificate)
            #expect(try client.last("REGISTER user\(index) \"\(Self.password)\"").hasPrefix("OK"))
        }
        let admin = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try admin.last("REGISTER root \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try ProcessTests.run(["admin", "grant", "root", "--data", "data"], in: directory.path).status == 0)
        let device = try Device(client: admin, user: "root", label: "root")
        var dropped = 0
        let deadline = Date().addingTimeInterval(20)
        while dropped == 0 && Date() < deadline {
            dropped = try device.ok("ADMIN STATS")["log_lines_dropped"] as? Int ?? -1
            if dropped == 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(dropped > 0)
        #expect(try admin.last("ADMIN STATS").contains("\"log_lines_dropped\""))
        #expect(try admin.last("MODE text").hasPrefix("OK"))
        #expect(try admin.call("ADMIN STATS").contains { $0.contains("lines dropped") })
        #expect(daemon.process.isRunning)
        daemon.process.terminate()
        try daemon.process.requireExit(within: 60)
        #expect(daemon.process.terminationStatus == 0)
    }

    /// Standard output that refuses every write (/dev/full: ENOSPC): the certificate and
    /// `listening on` lines are lost, and ADMIN STATS counts them. Before, only standard
    /// error's drops were reported, so this showed `log_lines_dropped` 0.
    @Test func linesLostOnStandardOutputAreCounted() throws {
        let directory = try TemporaryDirectory()
        let port = try FreePort.next()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProcessTests.chorusd)
        process.arguments = ["--port", "\(port)", "--data", "data", "--scrypt-log-n", "10"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = ChorusRun.Capture()
        let errorPipe = Pipe()
        process.standardError = errorPipe
        try process.run()
        errors.drain(errorPipe)
        defer { if process.isRunning { process.terminate() }; process.expectExit(within: 60) }
        let certificate = directory.path + "/certs/server.crt"
        // No listening line to wait for: try to connect until the server answers.
        var connected: TestClient?
        let deadline = Date().addingTimeInterval(20)
        while connected == nil && Date() < deadline && process.isRunning {
            connected = try? TestClient(port: port, certificatePath: certificate)
            if connected == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        let client = try #require(connected, "chorusd did not start: \(errors.text)")
        #expect(try client.last("REGISTER root \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try ProcessTests.run(["admin", "grant", "root", "--data", "data"], in: directory.path).status == 0)
        let admin = try Device(client: client, user: "root", label: "root")
        // The self-made certificate's two lines and the listening line.
        #expect(try admin.ok("ADMIN STATS")["log_lines_dropped"] as? Int == 3)
        #expect(process.isRunning)
    }

    /// Standard error on a pipe nobody reads (a stopped `less`, a hung collector): once
    /// the pipe is full, writes block. Before, the loop thread blocked in the write of the
    /// next log line and every session froze; now logins and commands go on.
    @Test func aFullStandardErrorDoesNotBlockTheServer() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        // The smallest pipe the kernel allows (a page): a few dozen lines fill it.
        let F_SETPIPE_SZ: Int32 = 1031
        #expect(fcntl(daemon.errors.fileHandleForReading.fileDescriptor, F_SETPIPE_SZ, 4096) >= 4096)
        let certificate = directory.path + "/certs/server.crt"
        // Each REGISTER logs about 60 bytes: 200 of them are three times the pipe.
        for index in 0..<200 {
            let client = try TestClient(port: daemon.port, certificatePath: certificate)
            #expect(try client.last("REGISTER user\(index) \"\(Self.password)\"").hasPrefix("OK"))
        }
        let again = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try again.last("LOGIN user7 \"\(Self.password)\"").hasPrefix("OK logged in as user7"))
        #expect(try again.last("PING still") == "OK PONG still")
        daemon.process.terminate()
        try daemon.process.requireExit(within: 60)
    }

    /// A socket that never starts TLS, and a session that goes quiet: each is closed by its
    /// timeout with one `close reason=...` line and counted in ADMIN STATS. Before, neither
    /// left a trace in the log.
    @Test func timeoutClosesAreLoggedAndCounted() throws {
        let server = try LoggedDaemon(["--handshake-timeout", "2", "--idle-timeout", "3"])
        defer { server.stop() }
        let admin = try server.admin("root")
        let idler = try server.client()
        #expect(try idler.last("REGISTER idler \"\(Self.password)\"").hasPrefix("OK"))
        let silent = rawConnection(port: server.port)
        defer { close(silent) }

        // The admin keeps its own session alive while it waits.
        var handshake: String?
        var idle: String?
        let deadline = Date().addingTimeInterval(30)
        while (handshake == nil || idle == nil) && Date() < deadline {
            #expect(try admin.ok("PING")["pong"] != nil)
            handshake = server.waitForLine(containing: ["close reason=handshake_timeout", "user=-", "addr=127.0.0.1"], timeout: 0.5)
            idle = server.waitForLine(containing: ["close reason=idle", "user=idler", "addr=127.0.0.1"], timeout: 0.5)
        }
        #expect(handshake?.contains("handshake_timeout=2") == true, "\(server.stderr.text)")
        #expect(idle?.contains("idle_timeout=3") == true, "\(server.stderr.text)")
        #expect(try Self.closed(by: "handshake_timeout", admin) == 1)
        #expect(try Self.closed(by: "idle", admin) == 1)
        #expect(try Self.closed(by: "sendq", admin) == 0)
        #expect(try idler.connection.readLine(timeout: 5)?.contains("idle for") == true)
    }

    /// An admin `sender` and a member `sleeper` in one room, the sleeper's queue empty.
    static func roomWithASleeper(on server: LoggedDaemon) throws -> (sender: Device, sleeper: Device, room: Int) {
        let sender = try server.admin("sender")
        let sleeper = try server.device("sleeper")
        let room = id(try sender.ok("ROOM CREATE Flat")["room"])
        try sender.add("sleeper", to: room)
        _ = try sleeper.drain()
        return (sender, sleeper, room)
    }

    /// A member who reads nothing while the room fills their queue past --sendq is closed
    /// with `close reason=sendq user=NAME` and counted; likewise one whose output waits
    /// --send-timeout.
    @Test func sendLimitClosesAreLoggedAndCounted() throws {
        let server = try LoggedDaemon(["--sendq", "65536", "--send-timeout", "3600", "--rate", "100000", "--burst", "100000"])
        defer { server.stop() }
        let (sender, sleeper, room) = try Self.roomWithASleeper(on: server)
        let text = String(repeating: "q", count: 3900)
        var line: String?
        var sent = 0
        // The sender in text mode, whose replies are short: its own queue has the same limit.
        #expect(try sender.client.last("MODE text").hasPrefix("OK"))
        while line == nil && sent < 4000 {
            try sender.client.connection.sendRaw(Array((sent..<sent + 50).map { "SAY \(room) \($0) \(text)\r\n" }.joined().utf8))
            for _ in 0..<50 { #expect(try sender.client.reply().last?.hasPrefix("OK") == true) }
            sent += 50
            line = server.waitForLine(containing: ["close reason=sendq", "user=sleeper"], timeout: 0)
        }
        line = line ?? server.waitForLine(containing: ["close reason=sendq", "user=sleeper"])
        #expect(line?.contains("sendq=65536") == true, "\(server.stderr.text)")
        #expect(try sender.client.last("MODE json").hasPrefix("{"))
        #expect(try Self.closed(by: "sendq", sender) == 1)
        #expect(try Self.closed(by: "send_timeout", sender) == 0)
        withExtendedLifetime(sleeper) {}  // connected, reading nothing, until the close
    }

    /// The send timeout, on its own server: a queue far below --sendq that the client
    /// does not read for --send-timeout seconds.
    @Test func sendTimeoutClosesAreLoggedAndCounted() throws {
        let server = try LoggedDaemon(["--sendq", "67108864", "--send-timeout", "2", "--rate", "100000", "--burst", "100000"])
        defer { server.stop() }
        let (sender, sleeper, room) = try Self.roomWithASleeper(on: server)
        let text = String(repeating: "s", count: 3900)
        // About 8 MB: more than the kernel's buffers hold for a client that reads nothing.
        for batch in stride(from: 0, to: 2000, by: 50) {
            let replies = try sender.pipeline((batch..<batch + 50).map { "SAY \(room) \($0) \(text)" })
            #expect(replies.allSatisfy { $0["type"] as? String == "ok" })
        }
        let line = server.waitForLine(containing: ["close reason=send_timeout", "user=sleeper"])
        #expect(line?.contains("send_timeout=2") == true, "\(server.stderr.text)")
        #expect(try Self.closed(by: "send_timeout", sender) == 1)
        withExtendedLifetime(sleeper) {}  // connected, reading nothing, until the close
    }

    /// The keys every line must have, checked on the parsed line: `ts` (RFC 3339 UTC with
    /// milliseconds), `level`, then `node` when `node` is given (and none otherwise), then
    /// `msg`. Returns the fields, or records why the line is not such a line.
    static func checkedLine(_ line: String, node: String?) -> [(key: String, value: String)]? {
        guard let fields = Logfmt.parse(line) else {
            Issue.record("not logfmt: \(line)")
            return nil
        }
        let keys = fields.map(\.key)
        let head = ["ts", "level"] + (node == nil ? [] : ["node"]) + ["msg"]
        #expect(Array(keys.prefix(head.count)) == head, "\(line)")
        #expect(keys.filter { $0 == "node" }.count == (node == nil ? 0 : 1), "\(line)")
        #expect(fields[0].value.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(line)")
        #expect(["info", "warn", "error"].contains(fields[1].value), "\(line)")
        if let node { #expect(fields[2].value == node, "\(line)") }
        return fields
    }

    /// A session of sign-up, login, failed logins up to the throttle and an idle close, then
    /// SIGTERM: every line on standard error is logfmt with the keys CONTRACT §12 names and
    /// no node= (no --postgres); the login, each failure and the throttle are a line each,
    /// and none holds a password. Before, only `close` lines were key=value, timestamps had
    /// whole seconds, and logins, failures and throttles left no line.
    @Test func everyLineOfASessionIsLogfmtAndLoginsAreLogged() throws {
        let server = try LoggedDaemon(["--idle-timeout", "2"])
        let wrong = "wrong horse battery staple"
        let ann = try server.client()
        #expect(try ann.last("REGISTER ann \"\(Self.password)\"").hasPrefix("OK"))
        let again = try server.client()
        #expect(try again.last("LOGIN ann \"\(Self.password)\"").hasPrefix("OK"))
        let guesser = try server.client()
        var failures = 0
        var throttled = false
        while !throttled && failures < 20 {
            let reply = try guesser.last("LOGIN ann \"\(wrong)\"")
            if reply.hasPrefix("ERR 401") { failures += 1 } else { throttled = reply.hasPrefix("ERR 429") }
        }
        #expect(failures > 0 && throttled)
        #expect(server.waitForLine(containing: ["msg=\"login throttled\"", "user=ann", "addr=127.0.0.1"]) != nil)
        #expect(server.waitForLine(containing: ["msg=close", "reason=idle"]) != nil, "\(server.stderr.text)")
        server.stop()
        #expect(server.waitForLine(containing: ["msg=\"stopped cleanly\""]) != nil)

        let lines = server.stderr.text.split(separator: "\n").map(String.init)
        var messages: [String] = []
        for line in lines {
            guard let fields = Self.checkedLine(line, node: nil) else { continue }
            let msg = fields[2].value
            messages.append(msg)
            #expect(!line.contains(wrong) && !line.contains(Self.password), "a password in the log: \(line)")
            if msg.hasPrefix("login") {
                #expect(fields.contains { $0.key == "user" && $0.value == "ann" } && fields.contains { $0.key == "addr" && $0.value == "127.0.0.1" }, "\(line)")
            }
        }
        #expect(messages.filter { $0 == "registered" }.count == 1, "\(messages)")
        #expect(messages.filter { $0 == "login" }.count == 1, "\(messages)")
        #expect(messages.filter { $0 == "login failed" }.count == failures, "\(messages)")
        #expect(messages.filter { $0 == "login throttled" }.count == 1, "\(messages)")
        #expect(messages.contains("close") && messages.contains("shutting down"), "\(messages)")
    }

    /// A cluster node names itself on every line (`node=` third, after `ts` and `level`),
    /// start-up lines included; a single server names none (above).
    @Test func aClusterNodeNamesItselfOnEveryLine() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "n1")
        let client = try TestClient(port: node.port, certificatePath: node.certificatePath)
        #expect(try client.last("REGISTER ann \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try client.last("LOGIN ann \"not the password at all\"").hasPrefix("ERR 401"))
        #expect(node.stderr.waitForLine(containing: ["msg=\"login failed\""]) != nil, "\(node.stderr.text)")
        #expect(node.stop() == 0)
        let lines = node.stderr.text.split(separator: "\n").map(String.init)
        #expect(lines.count >= 3, "\(lines)")
        for line in lines {
            _ = Self.checkedLine(line, node: "n1")
            #expect(!line.contains("not the password at all"), "\(line)")
        }
    }

    /// A role without the CREATE right on the schema: chorusd refuses to start with one
    /// line that names the cause, not the schema's SQL. Before, the refusal ran to three
    /// lines, the CREATE statement and the server's caret included.
    @Test func aMissingCreateRightIsOneLineNamingIt() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let role = "nocreate_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresConnection(database)
        try admin.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        try admin.execute("CREATE ROLE \(role) LOGIN")
        let directory = try TemporaryDirectory()
        let result = try ProcessTests.run(["--postgres", database.replacingOccurrences(of: "user=postgres", with: "user=\(role)"),
                                           "--node", "n1", "--port", "0"], in: directory.path)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("permission denied") && !result.stderr.contains("LINE 1"), "\(result.stderr)")
        #expect(result.stderr.count < 400, "\(result.stderr)")
    }
}

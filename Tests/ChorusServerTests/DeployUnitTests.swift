import ChorusTestSupport
import Foundation
import Testing

/// deploy/chorusd.service and deploy/chorusd-cluster.service: systemd accepts them, they
/// have the hardening README.md promises, the SQLite one's command line starts chorusd,
/// and the cluster one waits for PostgreSQL, restarts on 75 and reads a password file.
@Suite(.timeLimit(.minutes(10))) struct DeployUnitTests {
    static let units = ["chorusd.service", "chorusd-cluster.service"]

    static func unitPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/" + name).path
    }

    static var systemdAnalyze: String? {
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Where the tool is missing this is skipped, except under CI (which installs systemd
    /// for it in .ci/run): there a missing tool is a failure, not a silent skip.
    static var canVerify: Bool {
        systemdAnalyze != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    static func unit(_ name: String = "chorusd.service") throws -> String {
        try String(contentsOfFile: unitPath(name), encoding: .utf8)
    }

    /// The `Key=value` lines of the unit, comments left out.
    static func settings(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    /// `systemd-analyze verify` on a copy whose ExecStart is the chorusd just built (verify
    /// checks that the program exists): no error, and no warning either.
    @Test(.enabled(if: canVerify, "systemd-analyze is not installed (apt-get install systemd): the unit is not verified"),
          arguments: units)
    func systemdAcceptsTheUnit(_ name: String) throws {
        guard let tool = Self.systemdAnalyze else {
            Issue.record("CI=true but systemd-analyze is missing: .ci/run should have installed the systemd package")
            return
        }
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/" + name
        let text = try Self.unit(name).replacingOccurrences(of: "ExecStart=/usr/local/bin/chorusd", with: "ExecStart=" + ProcessTests.chorusd)
        #expect(text.contains("ExecStart=" + ProcessTests.chorusd))
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        let (status, said) = try Self.run(tool, ["verify", copy], in: directory.path)
        #expect(status == 0, "\(said)")
        #expect(said.isEmpty, "systemd-analyze verify warned: \(said)")
    }

    /// The hardening asked for: its own user, a read-only system, private /tmp, no new
    /// privileges, StateDirectory for data and certificates, SIGHUP to reload, restarts.
    @Test(arguments: units) func theUnitIsHardened(_ name: String) throws {
        let settings = Self.settings(try Self.unit(name))
        func value(_ key: String) -> String? { settings.last { $0.key == key }?.value }
        #expect(value("DynamicUser") == "yes")
        #expect(value("ProtectSystem") == "strict")
        #expect(value("PrivateTmp") == "yes")
        #expect(value("NoNewPrivileges") == "yes")
        #expect(value("StateDirectory") == "chorus")
        #expect(value("WorkingDirectory") == "/var/lib/chorus")
        #expect(value("ExecReload") == "/bin/kill -HUP $MAINPID")
        #expect(value("Restart") == "on-failure")
        #expect(value("RestartPreventExitStatus") == "2")
        // getifaddrs needs a netlink socket: without AF_NETLINK the self-made certificate
        // for --host 0.0.0.0 would lack the machine's LAN addresses.
        let families = value("RestrictAddressFamilies")?.split(separator: " ").map(String.init) ?? []
        #expect(families.contains("AF_NETLINK"), "\(families)")
        // Nothing else writable: no ReadWritePaths, and the data folder is inside the state directory.
        #expect(value("ReadWritePaths") == nil)
        if name == "chorusd.service" { #expect(value("ExecStart")?.contains("--data data") == true) }
    }

    /// The cluster node: started after a local PostgreSQL, restarted on 75 (not on 2) for
    /// as long as the database stays away, the password from a file only it can read.
    @Test func theClusterUnitWaitsForPostgresAndRestartsOn75() throws {
        let settings = Self.settings(try Self.unit("chorusd-cluster.service"))
        func values(_ key: String) -> [String] { settings.filter { $0.key == key }.flatMap { $0.value.split(separator: " ").map(String.init) } }
        #expect(values("After").contains("postgresql.service"))
        #expect(values("Wants").contains("postgresql.service"))
        #expect(values("Restart") == ["on-failure"])
        #expect(!values("RestartPreventExitStatus").contains("75") && !values("SuccessExitStatus").contains("75"))
        #expect(values("StartLimitIntervalSec") == ["0"])
        #expect(values("LoadCredential") == ["pgpass:/etc/chorus/pgpass"])
        #expect(values("Environment") == ["PGPASSFILE=%d/pgpass"])
        let command = values("ExecStart")
        #expect(command.contains("--postgres") && command.contains("--node"), "\(command)")
        // No password in the unit: a user with no `:secret` before the `@`, no password= anywhere.
        let url = command[(command.firstIndex(of: "--postgres") ?? 0) + 1]
        #expect(url.hasPrefix("postgresql://chorus@") && !command.joined(separator: " ").contains("password"), "\(url)")
    }

    /// The cluster unit's command line, its database at a closed port: the real chorusd
    /// exits 75, the status the unit restarts on.
    @Test func theClusterUnitsCommandLineExits75WhileTheDatabaseIsAway() throws {
        guard let command = Self.settings(try Self.unit("chorusd-cluster.service")).last(where: { $0.key == "ExecStart" })?.value else {
            Issue.record("no ExecStart")
            return
        }
        var words = command.split(separator: " ").map(String.init).dropFirst()
        let port = try FreePort.next()
        if let at = words.firstIndex(of: "--port") { words[at + 1] = "0" }
        if let at = words.firstIndex(of: "--postgres") { words[at + 1] = "postgresql://chorus@127.0.0.1:\(port)/chorus" }
        if let at = words.firstIndex(of: "--node") { words[at + 1] = "testhost" }
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(Array(words), in: directory.path)
        let (status, stderr) = daemon.finish()
        #expect(status == 75, "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1 && stderr.contains("127.0.0.1"), "\(stderr)")
    }

    /// The unit's ExecStart, run from a folder standing in for /var/lib/chorus, starts
    /// chorusd: the flags are all accepted, and certs/ and data/ are made inside it.
    @Test func theUnitsCommandLineStartsTheServer() throws {
        guard let command = Self.settings(try Self.unit()).last(where: { $0.key == "ExecStart" })?.value else {
            Issue.record("no ExecStart")
            return
        }
        var words = command.split(separator: " ").map(String.init).dropFirst()
        if let port = words.firstIndex(of: "--port") { words[port + 1] = "0" }
        let directory = try TemporaryDirectory()
        let daemon = try ProcessTests.Daemon(Array(words) + ["--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        #expect(FileManager.default.fileExists(atPath: directory.path + "/certs/server.crt"))
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/chorus.sqlite"))
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    static var haproxy: String? {
        ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// README's haproxy block, as an admin copies it: the fenced block after "With haproxy".
    static func readmeHAProxyBlock() throws -> String {
        let readme = try String(contentsOfFile: unitPath("../README.md"), encoding: .utf8)
        guard let start = readme.range(of: "With haproxy"),
              let open = readme.range(of: "```\n", range: start.upperBound..<readme.endIndex),
              let close = readme.range(of: "```", range: open.upperBound..<readme.endIndex) else { return "" }
        return String(readme[open.upperBound..<close.lowerBound])
    }

    /// `haproxy -c` accepts README's block, which holds the settings that make failover
    /// take about a second. Skipped where haproxy is missing, except under CI.
    @Test(.enabled(if: haproxy != nil || ProcessInfo.processInfo.environment["CI"] == "true",
                   "haproxy is not installed (apt-get install haproxy): README's block is not checked"))
    func readmesHAProxyBlockPassesTheCheck() throws {
        guard let tool = Self.haproxy else {
            Issue.record("CI=true but haproxy is missing: .ci/run should have installed it")
            return
        }
        let block = try Self.readmeHAProxyBlock()
        for setting in ["timeout connect", "timeout client", "timeout server", "inter 500ms fall 2 rise 2", "option redispatch", "retries",
                        "option httpchk GET /healthz", "check-alpn http/1.1"] {
            #expect(block.contains(setting), "README's haproxy block lacks \(setting)")
        }
        let directory = try TemporaryDirectory()
        let file = directory.path + "/haproxy.cfg"
        try block.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, said) = try Self.run(tool, ["-c", "-f", file], in: directory.path)
        #expect(status == 0, "\(said)")
        #expect(!said.contains("[WARNING]") && !said.contains("[ALERT]"), "haproxy -c warned: \(said)")
    }

    /// Runs a checking tool in `folder`: its exit status and what it said on either stream.
    static func run(_ tool: String, _ arguments: [String], in folder: String) throws -> (status: Int32, said: String) {
        let (status, said) = try ToolRun.run([tool] + arguments, in: folder)
        return (status, said)
    }
}

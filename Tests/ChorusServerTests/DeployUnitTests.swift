import Foundation
import Testing

/// deploy/chorusd.service: systemd accepts it, it has the hardening README.md promises,
/// and its command line starts chorusd.
@Suite(.timeLimit(.minutes(10))) struct DeployUnitTests {
    static let unitPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/chorusd.service").path

    static var systemdAnalyze: String? {
        ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Where the tool is missing this is skipped, except under CI (which installs systemd
    /// for it in .ci/run): there a missing tool is a failure, not a silent skip.
    static var canVerify: Bool {
        systemdAnalyze != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    static func unit() throws -> String {
        try String(contentsOfFile: unitPath, encoding: .utf8)
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
    @Test(.enabled(if: canVerify, "systemd-analyze is not installed (apt-get install systemd): the unit is not verified"))
    func systemdAcceptsTheUnit() throws {
        guard let tool = Self.systemdAnalyze else {
            Issue.record("CI=true but systemd-analyze is missing: .ci/run should have installed the systemd package")
            return
        }
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/chorusd.service"
        let text = try Self.unit().replacingOccurrences(of: "ExecStart=/usr/local/bin/chorusd", with: "ExecStart=" + ProcessTests.chorusd)
        #expect(text.contains("ExecStart=" + ProcessTests.chorusd))
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["verify", copy]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(said)")
        #expect(said.isEmpty, "systemd-analyze verify warned: \(said)")
    }

    /// The hardening asked for: its own user, a read-only system, private /tmp, no new
    /// privileges, StateDirectory for data and certificates, SIGHUP to reload, restarts.
    @Test func theUnitIsHardened() throws {
        let settings = Self.settings(try Self.unit())
        func value(_ key: String) -> String? { settings.last { $0.key == key }?.value }
        #expect(value("DynamicUser") == "yes")
        #expect(value("ProtectSystem") == "strict")
        #expect(value("PrivateTmp") == "yes")
        #expect(value("NoNewPrivileges") == "yes")
        #expect(value("StateDirectory") == "chorus")
        #expect(value("WorkingDirectory") == "/var/lib/chorus")
        #expect(value("ExecReload") == "/bin/kill -HUP $MAINPID")
        #expect(value("Restart") == "on-failure")
        // getifaddrs needs a netlink socket: without AF_NETLINK the self-made certificate
        // for --host 0.0.0.0 would lack the machine's LAN addresses.
        let families = value("RestrictAddressFamilies")?.split(separator: " ").map(String.init) ?? []
        #expect(families.contains("AF_NETLINK"), "\(families)")
        // Nothing else writable: no ReadWritePaths, and the data folder is inside the state directory.
        #expect(value("ReadWritePaths") == nil)
        #expect(value("ExecStart")?.contains("--data data") == true)
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
}

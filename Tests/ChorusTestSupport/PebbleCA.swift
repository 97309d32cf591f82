import Foundation
import Glibc
import Testing

/// A real test ACME CA: Debian's `pebble`, with `pebble-challtestsrv` as its DNS server
/// answering every name with 127.0.0.1 (its own challenge listeners off, so they cannot
/// clash with chorusd's). Each instance has its own ports and folder, so tests run side
/// by side. Pebble validates at once (`PEBBLE_VA_NOSLEEP`) and never reuses an
/// authorization (`PEBBLE_AUTHZREUSE=0`), so every order really answers a challenge.
///
/// Where the programs are missing the tests are skipped, saying why; under CI=true they
/// fail instead (`canRun` is true there, and starting fails).
public final class PebbleCA {
    public static let pebble = "/usr/bin/pebble"
    public static let challengeServer = "/usr/bin/pebble-challtestsrv"

    public static var canRun: Bool {
        if FileManager.default.isExecutableFile(atPath: pebble) && FileManager.default.isExecutableFile(atPath: challengeServer) {
            return true
        }
        return ProcessInfo.processInfo.environment["CI"] == "true"
    }

    public static let skipReason = "pebble and pebble-challtestsrv are not installed (apt install pebble)"

    public let folder: TemporaryDirectory
    /// Where the validator connects for tls-alpn-01 and http-01: chorusd listens here.
    public let tlsPort: Int
    public let httpPort: Int
    public let directoryURL: String
    /// Pebble's own HTTPS certificate, for `--acme-ca`.
    public let caFile: String
    private let managementPort: Int
    private let dnsManagementPort: Int
    private let dns: Process
    private var server: Process
    private let listenPort: Int
    private let config: String
    public let log = OutputCapture()

    /// `validity`: the seconds every certificate is valid (pebble's default is five years).
    public init(validity: Int? = nil) throws {
        folder = try TemporaryDirectory()
        listenPort = try FreePort.next()
        managementPort = try FreePort.next()
        tlsPort = try FreePort.next()
        httpPort = try FreePort.next()
        let dnsPort = try FreePort.next()
        dnsManagementPort = try FreePort.next()
        directoryURL = "https://127.0.0.1:\(listenPort)/dir"
        caFile = folder.path + "/pebble.crt"
        let keyFile = folder.path + "/pebble.key"
        try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                          "-keyout", keyFile, "-out", caFile, "-days", "2", "-subj", "/CN=pebble",
                                          "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        var settings = """
            "listenAddress": "127.0.0.1:\(listenPort)", "managementListenAddress": "127.0.0.1:\(managementPort)",
            "certificate": "\(caFile)", "privateKey": "\(keyFile)", "httpPort": \(httpPort), "tlsPort": \(tlsPort),
            "ocspResponderURL": "", "externalAccountBindingRequired": false
            """
        if let validity { settings += ", \"certificateValidityPeriod\": \(validity)" }
        config = folder.path + "/pebble.json"
        try Data("{\"pebble\": {\(settings)}}".utf8).write(to: URL(fileURLWithPath: config))

        dns = Process()
        dns.executableURL = URL(fileURLWithPath: Self.challengeServer)
        dns.arguments = ["-dns01", "127.0.0.1:\(dnsPort)", "-http01", "", "-https01", "", "-tlsalpn01", "",
                         "-management", "127.0.0.1:\(dnsManagementPort)", "-defaultIPv4", "127.0.0.1", "-defaultIPv6", ""]
        server = Self.pebbleProcess(config: config, dnsPort: dnsPort)
        for process in [dns, server] {
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            log.drain(pipe)
            try process.run()
        }
        guard Self.waitForPort(listenPort) && Self.waitForPort(dnsManagementPort) else {
            stop()
            throw Failure(description: "pebble did not start: \(log.text)")
        }
    }

    deinit { stop() }

    private static func pebbleProcess(config: String, dnsPort: Int) -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.pebble)
        server.arguments = ["-config", config, "-dnsserver", "127.0.0.1:\(dnsPort)"]
        server.environment = ProcessInfo.processInfo.environment.merging(["PEBBLE_VA_NOSLEEP": "1", "PEBBLE_AUTHZREUSE": "0"]) { _, new in new }
        return server
    }

    /// Stops pebble and starts it again on the same ports: it forgets every account,
    /// order and root, as a CA that lost its state would.
    public func restart() throws {
        let dnsPort = Int(server.arguments?.last?.split(separator: ":").last ?? "") ?? 0
        // SIGKILL, as in stop(): a SIGTERM may never be delivered.
        guard server.killAndWait() else { throw Failure(description: "pebble did not end after SIGKILL") }
        server = Self.pebbleProcess(config: config, dnsPort: dnsPort)
        let pipe = Pipe()
        server.standardOutput = pipe
        server.standardError = pipe
        log.drain(pipe)
        try server.run()
        guard Self.waitForPort(listenPort) else { throw Failure(description: "pebble did not start again: \(log.text)") }
    }

    public func stop() {
        // SIGKILL, not terminate(): a child started from a test process inherits its blocked
        // signals (the in-process servers block SIGTERM for their signal pipe), so SIGTERM
        // may never arrive. Pebble keeps nothing.
        for process in [server, dns] where !process.killAndWait() {
            Issue.record("\(process.commandLine) did not end within 10 s of SIGKILL")
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Pebble's issuing root (new at every start), written to a file for clients to trust.
    public func rootFile() throws -> String {
        let path = folder.path + "/root.pem"
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "--cacert", caFile, "-o", path, "https://127.0.0.1:\(managementPort)/roots/0"])
        return path
    }

    /// Makes the DNS answer `host`'s A queries with `address` (a name the validator then
    /// cannot reach), or with the default again when nil.
    public func answer(_ host: String, with address: String?) throws {
        let body = address.map { "{\"host\":\"\(host).\",\"addresses\":[\"\($0)\"]}" } ?? "{\"host\":\"\(host).\"}"
        try Self.run("/usr/bin/curl", ["-sS", "--fail", "-X", "POST", "-d", body,
                                       "http://127.0.0.1:\(dnsManagementPort)/\(address == nil ? "clear-a" : "add-a")"])
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let (status, text) = try ToolRun.run([tool] + arguments)
        guard status == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }

    /// Whether something accepts TCP connections on the loopback port within ten seconds.
    private static func waitForPort(_ port: Int) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if connected == 0 { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}

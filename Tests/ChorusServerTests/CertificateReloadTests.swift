import ChorusClient
import ChorusCrypto
import ChorusTestSupport
import Foundation
import Testing

/// SIGHUP reloads the certificate; a reload that fails logs why and keeps the old one,
/// and a certificate and key that do not match stop chorusd at start with one line.
/// Before, a failing load freed its OpenSSL context twice: abort, exit 134.
@Suite(.timeLimit(.minutes(10))) struct CertificateReloadTests {
    @Test func brokenReloadsKeepTheOldCertificateAndAGoodOneIsPickedUp() throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.path + "/server.crt"
        let key = directory.path + "/server.key"
        let old = try SelfSignedCertificate.create(certificatePath: certificate, keyPath: key)
        let newCertificate = directory.path + "/new.crt"
        let newKey = directory.path + "/new.key"
        let new = try SelfSignedCertificate.create(certificatePath: newCertificate, keyPath: newKey)
        let goodCertificate = try Data(contentsOf: URL(fileURLWithPath: certificate))

        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10",
                                              "--cert", certificate, "--key", key], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let log = StandardErrorLines(daemon.errors)
        // A session open all along keeps going through every reload.
        let resident = try TestClient(port: daemon.port, certificatePath: certificate)

        let files = FileManager.default
        let brokenVariants: [(name: String, breakFiles: () throws -> Void, reason: String)] = [
            ("garbage certificate", { try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: certificate)) },
             "cannot read certificate \(certificate)"),
            ("empty certificate", { try Data().write(to: URL(fileURLWithPath: certificate)) },
             "cannot read certificate \(certificate)"),
            ("missing certificate", { try files.removeItem(atPath: certificate) },
             "cannot read certificate \(certificate)"),
            ("key of another certificate", {
                try goodCertificate.write(to: URL(fileURLWithPath: certificate))
                try Data(contentsOf: URL(fileURLWithPath: newKey)).write(to: URL(fileURLWithPath: key))
            }, "private key \(key) does not match certificate \(certificate)"),
            ("missing key", { try files.removeItem(atPath: key) }, "cannot read private key \(key)"),
        ]
        for variant in brokenVariants {
            try variant.breakFiles()
            kill(daemon.process.processIdentifier, SIGHUP)
            let line = try log.next { $0.contains("SIGHUP") }
            #expect(line.contains("kept the old certificate") && line.contains(variant.reason), "\(variant.name): \(line)")
            #expect(daemon.process.isRunning, "\(variant.name)")
            #expect(try Self.fingerprint(port: daemon.port) == old, "\(variant.name)")
            #expect(try resident.last("PING \(variant.name.split(separator: " ").first!)").hasPrefix("OK PONG"))
        }

        // A good new pair is picked up by new connections.
        try Data(contentsOf: URL(fileURLWithPath: newCertificate)).write(to: URL(fileURLWithPath: certificate))
        try Data(contentsOf: URL(fileURLWithPath: newKey)).write(to: URL(fileURLWithPath: key))
        kill(daemon.process.processIdentifier, SIGHUP)
        let reloaded = try log.next { $0.contains("SIGHUP") }
        #expect(reloaded.contains("reloaded") && reloaded.contains(new), "\(reloaded)")
        #expect(try Self.fingerprint(port: daemon.port) == new)
        #expect(try resident.last("PING still") == "OK PONG still")

        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// `--cert good.crt --key other.key`: one line on standard error naming the mismatch, exit 2.
    /// A named pipe where the certificate was: SIGHUP logs why and keeps the old one
    /// without ever opening the pipe for reading, so a SIGTERM right after still stops
    /// chorusd at once. Before, the reload blocked in OpenSSL's read and SIGTERM waited.
    @Test func aPipeOrFolderForACertificateIsRefusedAndSIGTERMStillWorks() throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.path + "/server.crt"
        let key = directory.path + "/server.key"
        let old = try SelfSignedCertificate.create(certificatePath: certificate, keyPath: key)
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10",
                                              "--cert", certificate, "--key", key], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let log = StandardErrorLines(daemon.errors)

        try FileManager.default.removeItem(atPath: key)
        try FileManager.default.createDirectory(atPath: key, withIntermediateDirectories: false)
        kill(daemon.process.processIdentifier, SIGHUP)
        let folder = try log.next { $0.contains("SIGHUP") }
        #expect(folder.contains("kept the old certificate") && folder.contains("private key \(key): it is a directory"), "\(folder)")
        #expect(try Self.fingerprint(port: daemon.port) == old)

        try FileManager.default.removeItem(atPath: certificate)
        #expect(mkfifo(certificate, 0o600) == 0)
        kill(daemon.process.processIdentifier, SIGHUP)
        kill(daemon.process.processIdentifier, SIGTERM)
        #expect(daemon.waitForExit(timeout: 10), "SIGTERM was not acted on while a reload met a pipe")
        #expect(try log.next { $0.contains("stopped cleanly") }.contains("stopped cleanly"))
        try daemon.process.requireExit(within: 60)
        #expect(daemon.process.terminationStatus == 0)
    }

    /// A pipe as the certificate at start: one line, exit 2, nothing listening.
    @Test func aPipeForACertificateAtStartExitsWithStatus2() throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.path + "/server.crt"
        let key = directory.path + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: certificate, keyPath: key)
        try FileManager.default.removeItem(atPath: certificate)
        #expect(mkfifo(certificate, 0o600) == 0)
        let daemon = try ProcessTests.Daemon(["--port", "0", "--data", "data",
                                              "--cert", certificate, "--key", key], in: directory.path)
        #expect(daemon.waitForExit(timeout: 20), "chorusd hung on a pipe at start")
        let (status, stderr) = daemon.finish()
        #expect(status == 2 && stderr == "chorusd: cannot read certificate \(certificate): it is a named pipe, not a regular file\n",
                "\(status) \(stderr)")
    }

    @Test func mismatchedKeyAtStartExitsWithStatus2() throws {
        let directory = try TemporaryDirectory()
        _ = try SelfSignedCertificate.create(certificatePath: directory.path + "/good.crt", keyPath: directory.path + "/good.key")
        _ = try SelfSignedCertificate.create(certificatePath: directory.path + "/other.crt", keyPath: directory.path + "/other.key")
        let result = try ProcessTests.run(["--port", "0", "--data", "data", "--cert", "good.crt", "--key", "other.key"],
                                          in: directory.path)
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
        #expect(result.stderr.contains("private key other.key does not match certificate good.crt"), "\(result.stderr)")
    }

    /// The SHA-256 fingerprint a new connection is shown.
    static func fingerprint(port: Int) throws -> String? {
        let client = try LineClient(port: port, trust: .insecure)
        defer { client.close() }
        _ = try client.readLine()
        return client.peerCertificateFingerprint
    }
}

/// Reads a subprocess's standard error line by line as it comes.
final class StandardErrorLines {
    private let handle: FileHandle
    private var buffer = ""

    init(_ pipe: Pipe) {
        handle = pipe.fileHandleForReading
    }

    /// The next line that `matches`, skipping others; throws if the pipe closes first or
    /// `timeout` seconds pass.
    func next(timeout: Double = 60, _ matches: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            while let newline = buffer.firstIndex(of: "\n") {
                let line = String(buffer[..<newline])
                buffer = String(buffer[buffer.index(after: newline)...])
                if matches(line) { return line }
            }
            guard let data = handle.availableData(within: deadline.timeIntervalSinceNow) else {
                throw WaitTimedOut("no such line on standard error within \(Int(timeout)) s; last: \(buffer)")
            }
            if data.isEmpty { throw LineClient.Failure("standard error closed; last: \(buffer)") }
            buffer += String(decoding: data, as: UTF8.self)
        }
    }
}

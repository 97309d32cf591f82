import ChorusClient
import ChorusTestSupport
import Foundation
import Testing

/// `--acme` end to end against a real test CA (pebble, with pebble-challtestsrv answering
/// DNS with 127.0.0.1): the first certificate, its renewal at two thirds of its life, a
/// failed challenge (logged, the old certificate kept), http-01, the swap under an open
/// session, and two PostgreSQL nodes serving the one certificate one of them ordered.
/// Clients trust pebble's root and check the name, so a served certificate that verifies
/// is one pebble issued for it.
@Suite(.enabled(if: PebbleCA.canRun, Comment(rawValue: PebbleCA.skipReason)), .timeLimit(.minutes(10)))
struct ACMETests {
    static let name = "chores.test"

    /// chorusd on `port` ordering from `ca`, looking every half second.
    static func daemon(_ ca: PebbleCA, port: Int, in folder: TemporaryDirectory, timing: String,
                       flags: [String] = []) throws -> (ChorusDaemon, OutputCapture) {
        let daemon = try ChorusDaemon(["--port", String(port), "--data", "data", "--scrypt-log-n", "10"]
                                      + acmeFlags(ca) + flags,
                                      in: folder.path, environment: ["CHORUS_TEST_ACME_TIMING": timing])
        let log = OutputCapture()
        log.drain(daemon.errors)
        #expect(try daemon.waitUntilListening(), "\(log.text)")
        return (daemon, log)
    }

    static func acmeFlags(_ ca: PebbleCA) -> [String] {
        ["--acme", name, "--acme-directory", ca.directoryURL, "--acme-ca", ca.caFile, "--acme-email", "admin@chores.test"]
    }

    /// The fingerprint of the certificate a new connection gets, verified against `root`
    /// for the name; nil when it does not verify (not issued yet, or not for the name).
    static func servedFingerprint(port: Int, root: String) -> String? {
        guard let client = try? LineClient(port: port, trust: .certificateFile(root), serverName: name) else { return nil }
        defer { client.close() }
        guard (try? client.readLine()) != nil else { return nil }
        return client.peerCertificateFingerprint
    }

    /// Waits until `log` holds `count` lines with every one of `parts`.
    static func waitForLines(_ log: OutputCapture, _ parts: [String], count: Int = 1, timeout: Double = 60) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var found: [String] = []
        repeat {
            found = log.lines.filter { line in parts.allSatisfy { line.contains($0) } }
            if found.count >= count { return found }
            Thread.sleep(forTimeInterval: 0.1)
        } while Date() < deadline
        return found
    }

    /// `openssl s_client` against loopback `port` with `arguments`, standard input closed.
    static func openSSLClient(_ arguments: [String], port: Int) throws -> (status: Int32, output: String) {
        try ToolRun.run(["/usr/bin/openssl", "s_client", "-connect", "127.0.0.1:\(port)"] + arguments)
    }

    /// The companions without `--acme`, or a wildcard, stop chorusd with one line.
    @Test func acmeFlagsAreCheckedAtStart() throws {
        let folder = try TemporaryDirectory()
        for (flags, words) in [(["--acme-email", "a@b.test"], "need --acme NAME"),
                               (["--acme", "*.chores.test"], "no wildcards"),
                               (["--acme", "chores.test", "--acme-directory", "http://ca.test/dir"], "https:// URL")] {
            let daemon = try ChorusDaemon(["--port", "0", "--data", "data"] + flags, in: folder.path)
            let (status, stderr) = daemon.finish()
            #expect(status == 2 && stderr.hasPrefix("chorusd: --acme") && stderr.contains(words), "\(flags): \(stderr)")
        }
    }

    /// A logged-in line session that trusts pebble's root for the name.
    static func session(port: Int, root: String, user: String) throws -> LineClient {
        let client = try LineClient(port: port, trust: .certificateFile(root), serverName: name)
        _ = try client.readLine()
        try client.send("REGISTER \(user) \"correct horse battery staple\"")
        let reply = try client.readLine()
        #expect(reply?.hasPrefix("OK") == true, "\(reply ?? "nothing")")
        return client
    }

    static func ping(_ client: LineClient, _ word: String) throws -> String? {
        try client.send("PING \(word)")
        return try client.readLine()
    }

    /// Certificates valid 12 seconds: the first is issued and served, a session logs in,
    /// and at two thirds of its life a second one replaces it for new connections while
    /// the session goes on, over its old handshake, undisturbed.
    @Test func issuedThenRenewedAtTwoThirdsOfItsLifeUnderAnOpenSession() throws {
        let ca = try PebbleCA(validity: 12)
        let folder = try TemporaryDirectory()
        let (daemon, log) = try Self.daemon(ca, port: ca.tlsPort, in: folder, timing: "0.5,1")
        let first = Self.waitForLines(log, ["certificate installed", "how=issued"])
        try #require(first.count == 1, "\(log.text)\n\(ca.log.text)")
        #expect(first[0].contains("names=\(Self.name)"))
        let root = try ca.rootFile()
        let firstPrint = try #require(Self.servedFingerprint(port: daemon.port, root: root))
        let resident = try Self.session(port: daemon.port, root: root, user: "alice")
        #expect(try Self.ping(resident, "before") == "OK PONG before")

        let renewed = Self.waitForLines(log, ["certificate installed", "how=issued"], count: 2, timeout: 30)
        try #require(renewed.count >= 2, "\(log.text)")
        let secondPrint = try #require(Self.servedFingerprint(port: daemon.port, root: root))
        #expect(secondPrint != firstPrint)
        #expect(try Self.ping(resident, "after") == "OK PONG after")

        // The account key and certificate keys are in the store: owner-only files.
        for file in ["chorus.sqlite", "chorus.sqlite-wal", "chorus.sqlite-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.path + "/data/" + file)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "\(file)")
        }
        #expect(!log.text.contains("level=error"), "\(log.text)")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// The name stops resolving to chorusd: the renewal's challenge fails, the log says so
    /// and what is still served, chorusd goes on with the old certificate, and once the
    /// name is back a retry renews it.
    @Test func aFailedChallengeIsLoggedAndTheOldCertificateKept() throws {
        let ca = try PebbleCA()
        let folder = try TemporaryDirectory()
        // Renewal 10 s after the first certificate's start: time enough to break DNS first.
        let (daemon, log) = try Self.daemon(ca, port: ca.tlsPort, in: folder, timing: "0.5,1,10")
        try #require(Self.waitForLines(log, ["certificate installed", "how=issued"]).count == 1, "\(log.text)")
        try ca.answer(Self.name, with: "127.0.0.2")
        let root = try ca.rootFile()
        let firstPrint = try #require(Self.servedFingerprint(port: daemon.port, root: root))
        let resident = try Self.session(port: daemon.port, root: root, user: "alice")
        // SIGHUP keeps the ACME certificate (it does not fall back to the files).
        daemon.send(SIGHUP)
        #expect(Self.waitForLines(log, ["kept the ACME certificate", "signal=SIGHUP"]).count == 1, "\(log.text)")
        #expect(Self.servedFingerprint(port: daemon.port, root: root) == firstPrint)

        let failed = Self.waitForLines(log, ["level=error", "ACME order failed; kept the current certificate"])
        try #require(failed.count >= 1, "\(log.text)")
        #expect(Self.waitForLines(log, ["certificate installed"], count: 2, timeout: 0).count == 1, "\(log.text)")
        #expect(failed[0].contains("tls-alpn-01 challenge for \(Self.name) failed"), "\(failed[0])")
        #expect(failed[0].contains("serving=\"the certificate valid until"), "\(failed[0])")
        #expect(failed[0].contains("retry_in_s=1"), "\(failed[0])")
        #expect(daemon.process.isRunning)
        #expect(Self.servedFingerprint(port: daemon.port, root: root) == firstPrint)
        #expect(try Self.ping(resident, "still") == "OK PONG still")

        try ca.answer(Self.name, with: nil)
        try #require(Self.waitForLines(log, ["certificate installed", "how=issued"], count: 2).count >= 2, "\(log.text)")
        let renewedPrint = Self.servedFingerprint(port: daemon.port, root: root)
        #expect(renewedPrint != nil && renewedPrint != firstPrint)
        #expect(try Self.ping(resident, "after") == "OK PONG after")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// The CA forgets every account (restarted): the next order is refused with
    /// accountDoesNotExist, the stored account is dropped with a warning, and the retry
    /// registers a new one and gets the certificate.
    @Test func anAccountTheCAForgotIsRegisteredAgain() throws {
        let ca = try PebbleCA()
        let folder = try TemporaryDirectory()
        let (daemon, log) = try Self.daemon(ca, port: ca.tlsPort, in: folder, timing: "0.5,1,8")
        try #require(Self.waitForLines(log, ["certificate installed", "how=issued"]).count == 1, "\(log.text)")
        try ca.restart()
        let forgot = Self.waitForLines(log, ["level=warn", "does not accept the stored account", "accountDoesNotExist"])
        #expect(forgot.count == 1, "\(log.text)")
        try #require(Self.waitForLines(log, ["certificate installed", "how=issued"], count: 2).count >= 2, "\(log.text)")
        #expect(Self.waitForLines(log, ["ACME account registered"], count: 2, timeout: 0).count == 2, "\(log.text)")
        #expect(Self.servedFingerprint(port: daemon.port, root: try ca.rootFile()) != nil)
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// chorusd listens where the validator's tls-alpn-01 cannot reach it, with
    /// `--acme-http-port` where its http-01 does: the first order fails on tls-alpn-01,
    /// the retry prefers http-01 and gets the certificate.
    @Test func http01AnswersWhenTLSALPNCannot() throws {
        let ca = try PebbleCA()
        let folder = try TemporaryDirectory()
        let (daemon, log) = try Self.daemon(ca, port: try FreePort.next(), in: folder, timing: "0.5,0.5",
                                            flags: ["--acme-http-port", String(ca.httpPort)])
        try #require(Self.waitForLines(log, ["certificate installed", "how=issued"]).count == 1, "\(log.text)\n\(ca.log.text)")
        #expect(log.text.contains("tls-alpn-01 challenge for \(Self.name) failed"))
        #expect(log.lines.contains { $0.contains("ordering a certificate") && $0.contains("challenges=http-01,tls-alpn-01") })
        let root = try ca.rootFile()
        #expect(Self.servedFingerprint(port: daemon.port, root: root) != nil)
        // No challenge is under way now: an acme-tls/1 handshake gets an alert, and
        // ordinary clients go on as before.
        let probe = try Self.openSSLClient(["-alpn", "acme-tls/1", "-servername", Self.name], port: daemon.port)
        #expect(probe.status != 0 && probe.output.contains("unrecognized name"), "\(probe.output)")
        #expect(Self.servedFingerprint(port: daemon.port, root: root) != nil)
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// Two nodes on one PostgreSQL database, only one of them where the validator
    /// connects: whichever orders, the other answers the challenge from the store if need
    /// be, and both end up serving the one certificate, ordered once.
    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func twoNodesOnPostgresServeTheSameCertificate() throws {
        let ca = try PebbleCA()
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let environment = ["CHORUS_TEST_ACME_TIMING": "0.5,1"]
        // b starts first, so it most likely takes the lease and orders while the
        // validator can only reach a.
        let b = try ChorusNode.start(postgres: database, name: "b", flags: Self.acmeFlags(ca), environment: environment)
        let a = try ChorusNode.start(postgres: database, name: "a", port: ca.tlsPort, flags: Self.acmeFlags(ca), environment: environment)
        defer {
            a.stop()
            b.stop()
        }
        let root = try ca.rootFile()
        let deadline = Date().addingTimeInterval(90)
        var prints: (String?, String?) = (nil, nil)
        repeat {
            prints = (Self.servedFingerprint(port: a.port, root: root), Self.servedFingerprint(port: b.port, root: root))
            if prints.0 != nil && prints.0 == prints.1 { break }
            Thread.sleep(forTimeInterval: 0.25)
        } while Date() < deadline
        #expect(prints.0 != nil && prints.0 == prints.1, "a: \(a.stderr.text)\nb: \(b.stderr.text)")
        let issued = (a.stderr.lines + b.stderr.lines).filter { $0.contains("certificate installed") && $0.contains("how=issued") }
        let installed = (a.stderr.lines + b.stderr.lines).filter { $0.contains("certificate installed") }
        #expect(issued.count == 1 && installed.count == 2, "a: \(a.stderr.text)\nb: \(b.stderr.text)")
    }
}

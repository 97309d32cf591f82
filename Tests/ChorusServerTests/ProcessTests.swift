import ChorusClient
import ChorusCrypto
import Foundation
import Testing
import ChorusTestSupport

/// The `chorusd` executable as a user runs it: flags, the listening line, start-up
/// errors with exit status 2, SIGTERM, the admin command and the default certificate.
/// A time limit turns a stuck subprocess into a failure instead of a stalled run.
@Suite(.timeLimit(.minutes(10))) struct ProcessTests {
    /// The built chorusd sits next to the test bundle.
    static var chorusd: String { ChorusDaemon.chorusd }

    /// A chorusd process with captured output (shared with the cluster tests' `ChorusNode`).
    typealias Daemon = ChorusDaemon

    static func run(_ arguments: [String], in directory: String) throws -> (status: Int32, stderr: String) {
        try Daemon(arguments, in: directory).finish()
    }

    /// Port 0 picks a free port and the listening line says which; `--loops` sets the
    /// event-loop threads, named for `top -H`; SIGTERM sends `bye` and exits 0.
    @Test func listensOnAFreePortAndStopsCleanlyOnSIGTERM() throws {
        let directory = try TemporaryDirectory()
        let daemon = try Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10", "--loops", "3"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        #expect(daemon.port > 0)
        // Each thread names itself as it starts, which may be just after the listening line.
        let tasks = "/proc/\(daemon.process.processIdentifier)/task"
        var loops: [String] = []
        for _ in 0..<200 {
            let names = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { task in
                try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            loops = names.filter { $0.hasPrefix("chorus-loop") }.sorted()
            if loops.count == 3 && names.contains("chorus-db") { break }
            usleep(10_000)
        }
        #expect(loops == ["chorus-loop-0", "chorus-loop-1", "chorus-loop-2"])
        let client = try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
        #expect(try client.last("REGISTER lena \"correct horse battery staple\"").hasPrefix("OK"))
        daemon.process.terminate()
        #expect(try client.nextEvent().hasPrefix("* bye"))
        #expect(try client.connection.readLine() == nil)
        let result = daemon.finish()
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/chorus.sqlite"))
    }

    /// With no certificate, chorusd makes a self-signed one in certs/, key mode 0600, and prints its fingerprint.
    @Test func makesTheDefaultCertificate() throws {
        let directory = try TemporaryDirectory()
        let daemon = try Daemon(["--port", "0", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let certificate = directory.path + "/certs/server.crt"
        let fingerprint = try CertificateFingerprint.sha256(pemFile: certificate)
        #expect(daemon.stdoutLines.contains { $0.contains(fingerprint) })
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path + "/certs/server.key")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // A client that trusts exactly that certificate connects by name.
        let client = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try client.last("PING") == "OK PONG")
        daemon.process.interrupt()
        #expect(daemon.finish().status == 0)
    }

    /// Bad flags, a missing certificate, a busy port, an unusable data folder: one line on stderr, status 2.
    @Test func startupProblemsExitWithStatus2() throws {
        let directory = try TemporaryDirectory()
        let unknown = try Self.run(["--frobnicate"], in: directory.path)
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown flag --frobnicate"))

        let noLoops = try Self.run(["--loops", "0"], in: directory.path)
        #expect(noLoops.status == 2)
        #expect(noLoops.stderr.contains("--loops"))

        let tinyQueue = try Self.run(["--sendq", "4096"], in: directory.path)
        #expect(tinyQueue.status == 2)
        #expect(tinyQueue.stderr.contains("--sendq must be a whole number in 65536..."))

        let noSendTimeout = try Self.run(["--send-timeout", "0"], in: directory.path)
        #expect(noSendTimeout.status == 2)
        #expect(noSendTimeout.stderr.contains("--send-timeout must be a whole number in 1..."))

        for url in ["http://chores.example.org", "https://chores.example.org/calendar", "chores.example.org"] {
            let badPublicURL = try Self.run(["--public-url", url], in: directory.path)
            #expect(badPublicURL.status == 2)
            #expect(badPublicURL.stderr.contains("--public-url takes https://HOST"))
        }

        let badPort = try Self.run(["--port", "seventy"], in: directory.path)
        #expect(badPort.status == 2)
        #expect(badPort.stderr.contains("--port"))

        let noCert = try Self.run(["--port", "0", "--cert", "missing.crt", "--key", "missing.key"], in: directory.path)
        #expect(noCert.status == 2)
        #expect(noCert.stderr.contains("missing.crt"))

        _ = FileManager.default.createFile(atPath: directory.path + "/plainfile", contents: Data())
        let badData = try Self.run(["--port", "0", "--data", "plainfile/data"], in: directory.path)
        #expect(badData.status == 2)
        #expect(badData.stderr.contains("plainfile"))

        let first = try Daemon(["--port", "0", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try first.waitUntilListening())
        // Its own data folder: the first one's is locked (DataFolderTests).
        let busy = try Self.run(["--port", String(first.port), "--data", "other", "--scrypt-log-n", "10"], in: directory.path)
        #expect(busy.status == 2)
        #expect(busy.stderr.contains("cannot bind"))
        #expect(busy.stderr.split(separator: "\n").count == 2) // the low-cost warning and the error
        first.process.terminate()
        _ = first.finish()
    }

    /// `--registration` and `--register-rate` (CONTRACT §11): a bad value is one line and
    /// status 2; `--help` lists both; a running server refuses the sign-up past the rate
    /// and logs it, without the password.
    @Test func signUpFlags() throws {
        let directory = try TemporaryDirectory()
        let badMode = try Self.run(["--registration", "closed"], in: directory.path)
        #expect(badMode.status == 2)
        #expect(badMode.stderr == "chorusd: --registration takes open or invite, not closed\n"
            || badMode.stderr.contains("--registration takes open or invite, not closed"), "\(badMode.stderr)")
        #expect(badMode.stderr.split(separator: "\n").count == 1, "\(badMode.stderr)")
        let badRate = try Self.run(["--register-rate", "0"], in: directory.path)
        #expect(badRate.status == 2)
        #expect(badRate.stderr.contains("--register-rate must be a whole number in 1..."), "\(badRate.stderr)")

        let usage = try ToolRun.run([Self.chorusd, "--help"], errors: false).output
        #expect(usage.contains("--registration MODE") && usage.contains("--register-rate N"), "\(usage)")

        let daemon = try Daemon(["--port", "0", "--scrypt-log-n", "10", "--registration", "invite", "--register-rate", "1",
                                 "--exempt", "192.0.2.0/24"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let client = try TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
        #expect(try client.last("REGISTER founder \"first password of all\"").hasPrefix("OK"))
        #expect(try client.last("REGISTER second \"second secret password\"").hasPrefix("ERR 429 "))
        daemon.process.terminate()
        let log = daemon.finish().stderr
        #expect(log.contains("msg=\"sign-up refused\" code=429 name=second addr=127.0.0.1 registration=invite register_rate=1"), "\(log)")
        #expect(!log.contains("second secret password"), "\(log)")
    }

    /// `chorusd admin grant NAME --data DIR` makes an account a server admin.
    @Test func adminGrantFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let daemon = try Daemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        let certificate = directory.path + "/certs/server.crt"
        let client = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try client.last("REGISTER Mona \"correct horse battery staple\"").hasPrefix("OK"))
        let grant = try Self.run(["admin", "grant", "mona", "--data", "data"], in: directory.path)
        #expect(grant.status == 0)
        let missing = try Self.run(["admin", "grant", "nobody", "--data", "data"], in: directory.path)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no account named nobody"))
        let again = try TestClient(port: daemon.port, certificatePath: certificate)
        #expect(try again.last("LOGIN mona \"correct horse battery staple\"").hasPrefix("OK"))
        #expect(try again.last("WHOAMI") == "OK mona (server admin)")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    /// Out of file descriptors, chorusd pauses accepting instead of spinning or crashing,
    /// and takes new connections again once some close.
    @Test func survivesRunningOutOfDescriptors() throws {
        let directory = try TemporaryDirectory()
        let chorusd = Self.chorusd
        let daemon = try Daemon(["-c", "ulimit -n 48 && exec \"$0\" --port 0 --scrypt-log-n 10 --max-per-ip 0", chorusd],
                                in: directory.path, executable: "/bin/sh")
        #expect(try daemon.waitUntilListening())
        var sockets: [Int32] = []
        for _ in 0..<80 { sockets.append(rawConnection(port: daemon.port)) }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(daemon.process.isRunning)
        for fd in sockets { close(fd) }
        // Accepting resumes: a real client gets in within a few tries.
        var client: TestClient?
        for _ in 0..<60 where client == nil {
            client = try? TestClient(port: daemon.port, certificatePath: directory.path + "/certs/server.crt")
            if client == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(try client?.last("PING") == "OK PONG")
        daemon.process.terminate()
        let result = daemon.finish()
        #expect(result.status == 0)
        #expect(result.stderr.contains("pausing accepts"), "the descriptor limit was never reached: \(result.stderr)")
    }

    /// --help and --version print and exit 0.
    @Test func helpAndVersion() throws {
        let directory = try TemporaryDirectory()
        #expect(try Self.run(["--help"], in: directory.path).status == 0)
        #expect(try Self.run(["--version"], in: directory.path).status == 0)
    }
}

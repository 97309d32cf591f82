import ChorusPostgres
import Foundation
import Testing
import ChorusTestSupport

/// Why a `chorusd --postgres` cannot start, said in one line on standard error with exit
/// status 2, never with the password in it; and the new flags' own checks.
@Suite(.timeLimit(.minutes(10)))
struct PostgresStartupTests {
    static let secret = "Sup3r-s3cret-pw"

    /// Runs chorusd to its end; its status, standard error, and standard output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stderr: String, stdout: String) {
        let directory = try TemporaryDirectory()
        let daemon = try ChorusDaemon(arguments, in: directory.path, environment: environment)
        let (status, stderr) = daemon.finish()
        return (status, stderr, daemon.remainingOutput())
    }

    static func expectOneLineWithoutTheSecret(_ result: (status: Int32, stderr: String, stdout: String), naming parts: [String],
                                              status: Int32 = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for part in parts {
            #expect(result.stderr.contains(part), "no \(part) in: \(result.stderr)", sourceLocation: sourceLocation)
        }
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret), "the password is shown: \(result)",
                sourceLocation: sourceLocation)
        #expect(!result.stdout.contains("listening"), sourceLocation: sourceLocation)
    }

    /// Nothing listens on the port: the URI and the key=value form (quoted password),
    /// given as the flag or in `CHORUS_POSTGRES`. Unreachable is worth another try (exit
    /// 75, which the cluster unit restarts on); a string libpq cannot parse is not (2).
    @Test func anUnreachableDatabaseExitsWith75AndHidesThePassword() throws {
        let port = try FreePort.next()
        let uri = "postgresql://chorus:\(Self.secret)@127.0.0.1:\(port)/chorus?connect_timeout=5"
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", uri]),
                                           naming: ["cannot open PostgreSQL postgresql://chorus:****@127.0.0.1:\(port)/chorus", "\(port)"], status: 75)
        let keywords = "host=127.0.0.1 port=\(port) user=chorus password='\(Self.secret) with spaces' dbname=chorus"
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", keywords]),
                                           naming: ["password='****'", "\(port)"], status: 75)
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0"], environment: ["CHORUS_POSTGRES": uri]),
                                           naming: ["cannot open PostgreSQL", "chorus:****@"], status: 75)
        let parameter = "postgresql://chorus@127.0.0.1:\(port)/chorus?connect_timeout=5&password=\(Self.secret)"
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", parameter]),
                                           naming: ["&password=****", "\(port)"], status: 75)
        // libpq reads a URI's password up to the first `@`, so it may hold `?` and `:`.
        let questioned = "postgresql://chorus:q?\(Self.secret):x@127.0.0.1:\(port)/chorus?connect_timeout=5"
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", questioned]),
                                           naming: ["postgresql://chorus:****@127.0.0.1:\(port)/chorus"], status: 75)
        // A string libpq cannot parse, with the password in the part it quotes back.
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", "host=127.0.0.1 password=\(Self.secret) \(Self.secret)"]),
                                           naming: ["invalid connection string"])
    }

    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func aDatabaseThatDoesNotExistExitsWith2() throws {
        let server = try ThrowawayPostgres.sharedCluster()
        let conninfo = server.conninfo(database: "no_such_household") + " password=\(Self.secret)"
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", conninfo]),
                                           naming: ["no_such_household", "does not exist"])
        let admin = try Self.run(["admin", "grant", "ann", "--postgres", conninfo])
        Self.expectOneLineWithoutTheSecret(admin, naming: ["no_such_household"])
    }

    /// A server of the test's own that wants a password from role `chorus` (scram), with
    /// the role made; its conninfo without a password.
    static func serverWithPassword(_ password: String) throws -> (server: ThrowawayPostgres, conninfo: String) {
        let server = try ThrowawayPostgres()
        let admin = try PostgresConnection(server.conninfo())
        // CREATE ROLE takes no parameters: a function passes the password in as one.
        try admin.execute("""
            CREATE FUNCTION make_chorus_role(password text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN EXECUTE format('CREATE ROLE chorus LOGIN PASSWORD %L', password); END $$
            """)
        try admin.execute("SELECT make_chorus_role($1)", [.text(password)])
        try admin.execute("CREATE DATABASE chorus OWNER chorus")
        // First match wins: role chorus over TCP needs its password, everyone else is trusted.
        let rules = server.folder + "/data/pg_hba.conf"
        let trusted = try String(contentsOfFile: rules, encoding: .utf8)
        try ("host all chorus 127.0.0.1/32 scram-sha-256\n" + trusted).write(toFile: rules, atomically: false, encoding: .utf8)
        try server.tools.run("pg_ctl", ["reload", "-D", server.folder + "/data"], in: server.folder)
        let conninfo = "host=127.0.0.1 port=\(server.port) user=chorus dbname=chorus"
        // pg_ctl reload returns before the server has read the file again.
        for _ in 0..<100 {
            guard (try? PostgresConnection(conninfo + " password=not-it")) != nil else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return (server, conninfo)
    }

    /// A wrong password is refused in one line that names the role, with neither the
    /// wrong password nor the right one shown; the right one from `~/.pgpass` (so none on
    /// the command line) starts the node.
    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func badCredentialsExitWith2AndPgpassWorks() throws {
        let (server, conninfo) = try Self.serverWithPassword("right-\(Self.secret)")
        let wrong = try Self.run(["--port", "0", "--postgres", conninfo + " password=\(Self.secret)"])
        Self.expectOneLineWithoutTheSecret(wrong, naming: ["password authentication failed for user \"chorus\""])
        let none = try Self.run(["--port", "0", "--postgres", conninfo])
        Self.expectOneLineWithoutTheSecret(none, naming: ["cannot open PostgreSQL", "password"])

        let home = try TemporaryDirectory()
        let pgpass = home.path + "/.pgpass"
        try "127.0.0.1:\(server.port):chorus:chorus:right-\(Self.secret)\n".write(toFile: pgpass, atomically: false, encoding: .utf8)
        chmod(pgpass, 0o600)
        let node = try ChorusNode.start(postgres: "postgresql://chorus@127.0.0.1:\(server.port)/chorus", name: "pgpass",
                                        environment: ["HOME": home.path])
        let client = try TestClient(port: node.port, certificatePath: node.certificatePath)
        #expect(try client.last("REGISTER dee \"correct horse battery staple\"").hasPrefix("OK"))
        #expect(node.stop() == 0)
        #expect(!node.stderr.text.contains(Self.secret))
    }

    /// A schema a newer chorusd wrote is refused, not misread.
    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func aNewerSchemaExitsWith2() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "old")
        #expect(node.stop() == 0)
        try PostgresConnection(database).execute("UPDATE schema_version SET version = version + 1")
        Self.expectOneLineWithoutTheSecret(try Self.run(["--port", "0", "--postgres", database]),
                                           naming: ["newer than this program knows"])
    }

    /// An empty `CHORUS_POSTGRES` is no choice: SQLite in the data folder, as without it.
    @Test func anEmptyEnvironmentVariableMeansSQLite() throws {
        let directory = try TemporaryDirectory()
        let daemon = try ChorusDaemon(["--port", "0", "--data", "data", "--scrypt-log-n", "10"], in: directory.path,
                                      environment: ["CHORUS_POSTGRES": ""])
        #expect(try daemon.waitUntilListening())
        #expect(daemon.stdoutLines.contains { $0.hasPrefix("chorusd 0.1 listening on 127.0.0.1:") }, "\(daemon.stdoutLines)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/chorus.sqlite"))
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }

    @Test func theFlagsAreCheckedAndListed() throws {
        let help = try Self.run(["--help"])
        #expect(help.status == 0)
        for text in ["--postgres URL", "--node NAME", "CHORUS_POSTGRES", "~/.pgpass", "admin grant|revoke NAME [--data DIR | --postgres URL]"] {
            #expect(help.stdout.contains(text), "--help lacks \(text)")
        }
        let badNode = try Self.run(["--node", "has space"])
        #expect(badNode.status == 2)
        #expect(badNode.stderr.contains("--node takes"), "\(badNode.stderr)")
        // A node name without a database would serve SQLite quietly: refused, also when
        // CHORUS_POSTGRES is set but empty.
        for environment in [[:], ["CHORUS_POSTGRES": ""]] {
            let lonelyNode = try Self.run(["--port", "0", "--node", "c"], environment: environment)
            #expect(lonelyNode.status == 2 && lonelyNode.stderr.split(separator: "\n").count == 1, "\(lonelyNode)")
            #expect(lonelyNode.stderr.contains("--node names a cluster node and needs --postgres URL or CHORUS_POSTGRES"),
                    "\(lonelyNode.stderr)")
            #expect(!lonelyNode.stdout.contains("listening"))
        }
        let emptyStore = try Self.run(["--postgres", ""])
        #expect(emptyStore.status == 2)
        #expect(emptyStore.stderr.contains("--postgres needs a connection string"), "\(emptyStore.stderr)")
        let badAdmin = try Self.run(["admin", "grant", "ann", "--node", "x"])
        #expect(badAdmin.status == 2)
        #expect(badAdmin.stderr.contains("unknown flag --node for chorusd admin"), "\(badAdmin.stderr)")
    }
}

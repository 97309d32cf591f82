import ChorusClient
import ChorusPostgres
import Foundation
import Testing
import ChorusTestSupport

/// `chorusd --postgres` as an admin runs it (CONTRACT §8): the store in a throwaway
/// PostgreSQL database, the node's name, `CHORUS_POSTGRES`, start-up failures with exit
/// status 2 and no password shown, and `admin grant --postgres`.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct PostgresNodeTests {
    static let password = "correct horse battery staple"

    static func client(_ node: ChorusNode) throws -> TestClient {
        try TestClient(port: node.port, certificatePath: node.certificatePath)
    }

    /// Registers, makes a room and SAYs on one node; after SIGTERM (exit 0) and after
    /// SIGKILL the node starts again on the same database and everything is there. The
    /// data folder, given or not, is never made: the database holds everything.
    @Test func keepsItsDataInPostgreSQLAcrossRestarts() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "n1", flags: ["--data", "data"])
        #expect(node.daemon.stdoutLines.contains { $0.contains("node n1 listening on 127.0.0.1:\(node.port)") },
                "\(node.daemon.stdoutLines)")
        #expect(node.stderr.waitForLine(containing: ["node=n1", "msg=\"cluster node\"", "database=\"PostgreSQL"]) != nil, "\(node.stderr.text)")
        let ann = try Self.client(node)
        #expect(try ann.last("REGISTER ann \"\(Self.password)\"").hasPrefix("OK"))
        ann.mode = "json"
        try ann.call("MODE json")
        let room = (try ann.json("ROOM CREATE Flat")["room"] as? [String: Any])?["id"] as? Int ?? 0
        #expect(room > 0)
        #expect(try ann.json("SAY \(room) before the restart")["type"] as? String == "ok")

        #expect(node.stop() == 0)
        try node.restart()
        let again = try Self.client(node)
        #expect(try again.last("LOGIN ann \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try again.call("HISTORY \(room)").contains { $0.contains("before the restart") })
        #expect(try again.last("SAY \(room) before the kill").hasPrefix("OK"))

        node.kill()
        #expect(node.waitForExit() == 128 + SIGKILL)
        try node.restart()
        let third = try Self.client(node)
        #expect(try third.last("LOGIN ann \"\(Self.password)\"").hasPrefix("OK"))
        let history = try third.call("HISTORY \(room)")
        #expect(history.contains { $0.contains("before the restart") } && history.contains { $0.contains("before the kill") },
                "\(history)")
        #expect(!FileManager.default.fileExists(atPath: node.folder.path + "/data"))
        #expect(node.stop() == 0)
    }

    /// Two nodes started at the same moment on a database that has no schema yet: both
    /// come up (the schema is made once, under the advisory lock) and serve one store.
    @Test func twoNodesStartingTogetherOnAFreshDatabaseBothComeUp() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let first = try ChorusNode.launch(postgres: database, name: "first")
        let second = try ChorusNode.launch(postgres: database, name: "second")
        try first.waitUntilListening()
        try second.waitUntilListening()
        let onFirst = try Self.client(first)
        #expect(try onFirst.last("REGISTER bo \"\(Self.password)\"").hasPrefix("OK"))
        let onSecond = try Self.client(second)
        #expect(try onSecond.last("LOGIN bo \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try onSecond.last("REGISTER bo \"\(Self.password)\"").hasPrefix("ERR"))
        #expect(first.stop() == 0)
        #expect(second.stop() == 0)
    }

    /// `CHORUS_POSTGRES` stands for `--postgres`; the admin command reads it too.
    @Test func theEnvironmentVariableChoosesTheDatabase() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let environment = ["CHORUS_POSTGRES": database]
        let node = try ChorusNode.start(postgres: nil, name: "env", environment: environment)
        #expect(node.daemon.stdoutLines.contains { $0.contains("node env listening on") }, "\(node.daemon.stdoutLines)")
        let client = try Self.client(node)
        #expect(try client.last("REGISTER cy \"\(Self.password)\"").hasPrefix("OK"))
        // Found through the flag: the same database.
        let grant = try ChorusDaemon(["admin", "grant", "cy", "--postgres", database], in: node.folder.path).finish()
        #expect(grant.status == 0, "\(grant.stderr)")
        let revoke = try ChorusDaemon(["admin", "revoke", "cy"], in: node.folder.path, environment: environment).finish()
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(!FileManager.default.fileExists(atPath: node.folder.path + "/data"))
        #expect(node.stop() == 0)
    }

    /// `chorusd admin grant NAME --postgres URL` against a running node's database.
    @Test func adminGrantWithPostgres() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "admin-test")
        let client = try Self.client(node)
        #expect(try client.last("REGISTER Mona \"\(Self.password)\"").hasPrefix("OK"))
        let grant = try ChorusDaemon(["admin", "grant", "mona", "--postgres", database], in: node.folder.path).finish()
        #expect(grant.status == 0, "\(grant.stderr)")
        let missing = try ChorusDaemon(["admin", "grant", "nobody", "--postgres", database], in: node.folder.path).finish()
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no account named nobody"), "\(missing.stderr)")
        let again = try Self.client(node)
        #expect(try again.last("LOGIN mona \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try again.last("WHOAMI") == "OK mona (server admin)")
        #expect(node.stop() == 0)
    }

    /// The harness's SIGSTOP and SIGCONT: a paused node answers nothing, its sessions
    /// stay open, and once resumed it answers what waited.
    @Test func aPausedNodeAnswersOnceResumed() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "sleepy")
        let client = try Self.client(node)
        #expect(try client.last("PING") == "OK PONG")
        node.pause()
        try client.connection.send("PING")
        #expect(throws: LineClient.Failure.self, "a stopped node answered") { try client.connection.readLine(timeout: 1) }
        node.resume()
        #expect(try client.reply() == ["OK PONG"])
        #expect(node.stop() == 0)
    }

    /// The default name is HOST:PORT.
    @Test func theNodeIsNamedAfterItsAddressByDefault() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let port = try FreePort.next()
        let directory = try TemporaryDirectory()
        let daemon = try ChorusDaemon(["--postgres", database, "--port", String(port), "--scrypt-log-n", "10"], in: directory.path)
        #expect(try daemon.waitUntilListening())
        #expect(daemon.stdoutLines.contains { $0.contains("node 127.0.0.1:\(port) listening on 127.0.0.1:\(port)") },
                "\(daemon.stdoutLines)")
        daemon.process.terminate()
        #expect(daemon.finish().status == 0)
    }
}

import ChorusPostgres
import Foundation
import Testing
import ChorusTestSupport

/// `chorusd after-restore` and a SYNC past the end (CONTRACT §12), through the real
/// binary on both engines: a backup is taken, more is written, the backup is restored,
/// and the ids and events the lost tail handed out must never be handed out again.
@Suite(.timeLimit(.minutes(10)))
struct AfterRestoreTests {
    static let password = "correct horse battery staple"
    static let flags = ["--scrypt-log-n", "10", "--rate", "100000", "--burst", "100000"]

    /// A running chorusd of either engine, as the test needs it.
    struct Running {
        let port: Int
        let certificate: String
        let stop: () -> Void
    }

    static func id(_ reply: [String: Any], _ key: String) -> Int {
        (reply[key] as? [String: Any])?["id"] as? Int ?? 0
    }

    static func client(_ server: Running, login name: String) throws -> TestClient {
        let client = try TestClient(port: server.port, certificatePath: server.certificate)
        #expect(try client.last("LOGIN \(name) \"\(password)\"").hasPrefix("OK"))
        try client.call("MODE json")
        return client
    }

    /// `chorusd after-restore ARGUMENTS` in `folder`: its status and both outputs.
    static func afterRestore(_ arguments: [String], in folder: String) throws -> (status: Int32, stderr: String, stdout: String) {
        let daemon = try ChorusDaemon(["after-restore"] + arguments, in: folder)
        let (status, stderr) = daemon.finish()
        return (status, stderr, daemon.remainingOutput())
    }

    /// The finding: backup, three more writes, restore, `after-restore`; then a new
    /// message, task and event are numbered above all the lost tail used, and a cursor
    /// from the lost tail is told to start over instead of silently finding nothing.
    static func restoreKeepsEveryID(start: () throws -> Running, backUp: () throws -> Void, restore: () throws -> Void,
                                    afterRestore arguments: [String], in folder: String) throws {
        var server = try start()
        for name in ["ann", "bob"] {
            let client = try TestClient(port: server.port, certificatePath: server.certificate)
            #expect(try client.last("REGISTER \(name) \"\(password)\"").hasPrefix("OK"))
        }
        var ann = try client(server, login: "ann")
        let room = id(try ann.json("ROOM CREATE Flat"), "room")
        try ann.add("bob", to: String(room))
        #expect(id(try ann.json("SAY \(room) before the backup"), "message") > 0)
        let backedUpEnd = try ann.json("SYNC 0 500")["last"] as? Int ?? 0
        server.stop()
        try backUp()

        // The tail the restore will lose.
        server = try start()
        ann = try client(server, login: "ann")
        let lostMessage = id(try ann.json("SAY \(room) lost one"), "message")
        let lostTask = id(try ann.json("TASK ADD \(room) Bins"), "task")
        #expect(id(try ann.json("SAY \(room) lost two"), "message") > lostMessage)
        let bob = try client(server, login: "bob")
        let bobCursor = try bob.json("SYNC \(backedUpEnd) 500")["last"] as? Int ?? 0
        #expect(bobCursor > backedUpEnd)
        server.stop()

        try restore()
        let moved = try afterRestore(arguments, in: folder)
        #expect(moved.status == 0, "\(moved)")
        #expect(moved.stdout.contains("messages: highest id known") && moved.stdout.contains("after-restore: moved"), "\(moved.stdout)")
        // Twice is safe: the counters only move further.
        #expect(try afterRestore(arguments, in: folder).status == 0)

        server = try start()
        defer { server.stop() }
        // bob's cursor came from the lost tail: past the end, so he is told to start over.
        let bobAgain = try client(server, login: "bob")
        let reset = try bobAgain.json("SYNC \(bobCursor)")
        #expect(reset["reset"] as? Bool == true, "\(reset)")
        #expect(reset["last"] as? Int == backedUpEnd, "\(reset)")
        // A cursor the log covers is answered as always, with no reset.
        #expect(try bobAgain.json("SYNC \(backedUpEnd)")["reset"] == nil)

        ann = try client(server, login: "ann")
        let message = id(try ann.json("SAY \(room) after the restore"), "message")
        let task = id(try ann.json("TASK ADD \(room) Hoover"), "task")
        #expect(message > lostMessage + 1, "message \(message) reuses an id the lost tail gave out")
        #expect(task > lostTask, "task \(task) reuses an id the lost tail gave out")
        // Even from the lost cursor, the new events are found: their ids are above it.
        let found = try bobAgain.json("SYNC \(bobCursor)")
        let events = found["events"] as? [[String: Any]] ?? []
        #expect(events.count == 2 && found["reset"] == nil, "\(found)")
        #expect(events.allSatisfy { ($0["id"] as? Int ?? 0) > bobCursor }, "\(found)")
    }

    @Test func sqliteRestoreMovesEveryCounter() throws {
        let folder = try TemporaryDirectory()
        let files = FileManager.default
        func start() throws -> Running {
            let started = try ChorusDaemon(["--port", "0", "--data", "data"] + Self.flags, in: folder.path)
            #expect(try started.waitUntilListening())
            return Running(port: started.port, certificate: folder.path + "/certs/server.crt") {
                started.send(SIGTERM)
                #expect(started.waitForExit(timeout: 30))
            }
        }
        try Self.restoreKeepsEveryID(start: start, backUp: {
            try files.copyItem(atPath: folder.path + "/data", toPath: folder.path + "/backup")
        }, restore: {
            try files.removeItem(atPath: folder.path + "/data")
            try files.copyItem(atPath: folder.path + "/backup", toPath: folder.path + "/data")
        }, afterRestore: ["--data", "data"], in: folder.path)
    }

    @Test func sqliteRefusesAFolderARunningChorusdHolds() throws {
        let folder = try TemporaryDirectory()
        let daemon = try ChorusDaemon(["--port", "0", "--data", "data"] + Self.flags, in: folder.path)
        #expect(try daemon.waitUntilListening())
        let refused = try Self.afterRestore(["--data", "data"], in: folder.path)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("stop it first") && refused.stdout.isEmpty, "\(refused)")
        daemon.send(SIGTERM)
        #expect(daemon.waitForExit(timeout: 30))
    }

    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func postgresRestoreMovesEveryCounter() throws {
        let cluster = try ThrowawayPostgres.sharedCluster()
        let database = try cluster.makeDatabase()
        let name = "backup_" + UUID().uuidString.prefix(8).lowercased()
        let backup = cluster.conninfo(database: name)
        var current = database
        func start() throws -> Running {
            let started = try ChorusNode.start(postgres: current, name: "a")
            return Running(port: started.port, certificate: started.certificatePath) { started.stop() }
        }
        let folder = try TemporaryDirectory()
        try Self.restoreKeepsEveryID(start: start, backUp: {
            // A copy of the database with no node connected: the backup.
            let admin = try PostgresConnection(cluster.conninfo())
            defer { admin.close() }
            let source = database.split(separator: "=").last.map(String.init) ?? ""
            try admin.execute("CREATE DATABASE \(name) TEMPLATE \(source)")
        }, restore: {
            current = backup
        }, afterRestore: ["--postgres", backup], in: folder.path)

        // A connected node is refused, and nothing moves.
        let running = try ChorusNode.start(postgres: backup, name: "b")
        defer { running.stop() }
        let refused = try Self.afterRestore(["--postgres", backup], in: folder.path)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("stop every node before after-restore"), "\(refused)")
    }
}

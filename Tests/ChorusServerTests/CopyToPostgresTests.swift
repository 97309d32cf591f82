import ChorusCore
import ChorusPostgres
import ChorusSQLite
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// `chorusd copy-to-postgres` (CONTRACT §8): a household made by a real chorusd on SQLite
/// moves to PostgreSQL and a node there serves it as if nothing happened.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason), .timeLimit(.minutes(10)))
struct CopyToPostgresTests {
    static let password = "correct horse battery staple"
    static let flags = ["--scrypt-log-n", "10", "--rate", "100000", "--burst", "100000"]

    /// What the household's history looked like on SQLite, to hold the copy to.
    struct Household {
        let folder: TemporaryDirectory
        let room: Int
        let token: String
        /// A cursor in the middle of the log, and what ann's and bob's SYNC gave from it.
        let middle: Int
        let annSync: [String]
        let bobSync: [String]
        let lastEvent: Int
        /// Ids given out and then deleted: the copy must not hand them out again.
        let deletedRoom: Int
        let deletedTask: Int
        let lastMessage: Int
    }

    static func id(_ reply: [String: Any], _ key: String) -> Int {
        (reply[key] as? [String: Any])?["id"] as? Int ?? 0
    }

    /// Every event of `user` after `cursor`, page by page, each as sorted-key JSON text.
    static func sync(_ client: TestClient, after cursor: Int) throws -> [String] {
        var events: [String] = []
        var after = cursor
        while true {
            let page = try client.json("SYNC \(after) 7")
            for event in page["events"] as? [[String: Any]] ?? [] {
                let data = try JSONSerialization.data(withJSONObject: event, options: [.sortedKeys])
                events.append(String(decoding: data, as: UTF8.self))
            }
            guard page["more"] as? Bool == true, let last = page["last"] as? Int else { return events }
            after = last
        }
    }

    static func client(port: Int, certificate: String, login name: String) throws -> TestClient {
        let client = try TestClient(port: port, certificatePath: certificate)
        #expect(try client.last("LOGIN \(name) \"\(password)\"").hasPrefix("OK"))
        try client.call("MODE json")
        return client
    }

    /// Accounts, a token, rooms (one deleted), members, an invite, tasks with a subtask,
    /// a repeat done once, a reminder and an overdue notice (cat offline: kept for her),
    /// a personal task, a deleted task, comments, messages, a DM; then chorusd stops.
    static func makeHousehold() throws -> Household {
        let folder = try TemporaryDirectory()
        let daemon = try ChorusDaemon(["--port", "0", "--data", "data"] + flags, in: folder.path)
        #expect(try daemon.waitUntilListening())
        let certificate = folder.path + "/certs/server.crt"
        for name in ["ann", "bob", "cat", "dan"] {
            let client = try TestClient(port: daemon.port, certificatePath: certificate)
            #expect(try client.last("REGISTER \(name) \"\(password)\"").hasPrefix("OK"))
        }
        let ann = try client(port: daemon.port, certificate: certificate, login: "ann")
        let bob = try client(port: daemon.port, certificate: certificate, login: "bob")
        let room = id(try ann.json("ROOM CREATE Flat 2B"), "room")
        try ann.add("bob", to: String(room))
        try ann.add("cat", to: String(room))
        #expect(try ann.json("ROOM INVITE \(room) uses=3 expires=+7d")["code"] is String)
        let bins = id(try ann.json("TASK ADD \(room) Bins assign=bob due=+3d remind=+2d repeat=weekly points=2"), "task")
        #expect(id(try ann.json("TASK ADD \(room) \"Sort recycling\" parent=\(bins) notes=\"blue bag\""), "task") > bins)
        #expect(try bob.json("TASK DONE \(bins)")["type"] as? String == "ok")
        #expect(id(try ann.json("TASK ADD \(room) Descale due=2020-01-02 start=2019-12-20 estimate=2.5"), "task") > 0)
        #expect(id(try ann.json("TASK ADD me \"Call mum\" due=tomorrow"), "task") > 0)
        #expect(try bob.json("COMMENT \(bins) done, bags are out")["type"] as? String == "ok")
        var lastMessage = 0
        for line in 1...12 {
            lastMessage = id(try (line % 2 == 0 ? ann : bob).json("SAY \(room) line \(line) with \"quotes\" and ünïcode"), "message")
        }
        #expect(try ann.json("DM bob the plumber comes at 10")["type"] as? String == "ok")
        // Who may reach whom: dan (a stranger) invited and not answering, blocked by bob;
        // bob removed from a second room of ann's, so its codes keep him out.
        #expect(try ann.json("ROOM ADD \(room) dan")["invited"] as? Bool == true)
        #expect(try bob.json("BLOCK dan")["blocked"] as? Bool == true)
        let attic = id(try ann.json("ROOM CREATE Attic"), "room")
        #expect(try ann.json("ROOM ADD \(attic) bob")["invited"] as? Bool == false)
        #expect(try ann.json("ROOM REMOVE \(attic) bob")["type"] as? String == "ok")
        let token = try ann.json("TOKEN CREATE housebot")["token"] as? String ?? ""
        #expect(try bob.json("TOKEN CREATE phone kind=device")["kind"] as? String == "device")
        // Calendar feeds: the links' digests move with the household.
        #expect(try ann.json("CALENDAR LINK \(room)")["url"] as? String != nil)
        #expect(try bob.json("CALENDAR LINK me")["url"] as? String != nil)
        // Web Push: the server's key and a device's subscription move along.
        #expect(try ann.json("PUSH KEY")["key"] as? String != nil)
        let phone = try PushCommandTests.browserSubscription()
        #expect(try bob.json("PUSH SUBSCRIBE \(phone.endpoint) \(phone.p256dh) \(phone.auth) phone")["type"] as? String == "ok")
        let gone = id(try ann.json("ROOM CREATE Gone"), "room")
        #expect(try ann.json("ROOM DELETE \(gone)")["type"] as? String == "ok")
        // bob has read everything so far: his marker moves with the household.
        #expect(try bob.json("READ \(room) 999999")["unread"] as? Int == 0)
        let temporary = id(try ann.json("TASK ADD \(room) Temporary"), "task")
        #expect(try ann.json("TASK DELETE \(temporary)")["type"] as? String == "ok")
        #expect(try ann.json("SAY \(room) the newest line")["type"] as? String == "ok")

        let everything = try sync(ann, after: 0)
        let ids = everything.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int
        }
        let middle = ids[ids.count / 2]
        let household = Household(folder: folder, room: room, token: token, middle: middle,
                                  annSync: try sync(ann, after: middle), bobSync: try sync(bob, after: middle),
                                  lastEvent: ids.last ?? 0, deletedRoom: gone, deletedTask: temporary, lastMessage: lastMessage)
        daemon.send(SIGTERM)
        #expect(daemon.waitForExit(timeout: 30))
        #expect(!household.annSync.isEmpty && !household.bobSync.isEmpty)
        // ACME: the account and certificate a server with --acme keeps move along, so the
        // copy serves the same certificate. Written directly: ordering one needs a CA
        // (ACMETests does that against pebble).
        let database = try Database(path: folder.path + "/data/chorus.sqlite")
        _ = try database.keepACMEAccount(ACMEAccountRecord(directory: "https://acme.example/dir", privateKey: "account-key",
                                                           url: "https://acme.example/acct/1"), created: "2026-12-01T00:00:00Z")
        _ = try database.keepACMECertificate(ACMECertificateRecord(names: "chores.example.org", chainPEM: "chain", keyPEM: "key",
                                                                   notBefore: 1_800_000_000, notAfter: 1_807_776_000))
        // Notices: ann's choices and stop link, a code waiting for bob, and a notice waiting
        // for bob's quiet hours to end, all move along. Written directly: the daemon would
        // send the notice, and a code needs a mail server (MailDeliveryTests).
        let annID = try #require(try database.account(named: "ann")).id
        let bobID = try #require(try database.account(named: "bob")).id
        try database.saveNotifyChoices(NotifyChoices(push: true, emailAddress: "ann@example.org", emailOn: true, kinds: [.dm, .reminder],
                                                     quiet: QuietHours(start: 1320, end: 420), zone: "Europe/London"), user: annID)
        try database.setMailStop(user: annID, token: "stop-ann-0123456789abcdef")
        try database.saveEmailCode(user: bobID, address: "bob@example.org", digest: "digest", expires: 1_900_000_000)
        #expect(try database.queueNotice(QueuedNotice(user: bobID, event: "dm", title: "ann wrote to you", body: "hi", url: "/#/stream",
                                                      topic: nil, urgency: "normal", ttl: 60, notBefore: 1_900_000_000, push: true,
                                                      mailTo: nil), created: "2026-12-01T00:00:00Z") == 1)
        database.close()
        return household
    }

    static func copy(_ folder: TemporaryDirectory, to database: String, data: String = "data")
        throws -> (status: Int32, stderr: String, stdout: String) {
        let daemon = try ChorusDaemon(["copy-to-postgres", "--data", data, "--postgres", database], in: folder.path)
        let (status, stderr) = daemon.finish()
        return (status, stderr, daemon.remainingOutput())
    }

    @Test func aHouseholdMovesFromSQLiteWithPasswordsTokensIdsAndHistoryKept() throws {
        let household = try Self.makeHousehold()
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let copied = try Self.copy(household.folder, to: database)
        #expect(copied.status == 0, "\(copied)")
        #expect(copied.stdout.contains("copied") && copied.stdout.contains("rows/s"), "\(copied.stdout)")
        #expect(copied.stderr.contains("copy-to-postgres: events: ") && copied.stderr.contains("copy-to-postgres: users: 4/4 rows"),
                "\(copied.stderr)")
        try CopiedRows.expectSame(sqlite: household.folder.path + "/data/chorus.sqlite", postgres: database)

        let node = try ChorusNode.start(postgres: database, name: "moved")
        let ann = try Self.client(port: node.port, certificate: node.certificatePath, login: "ann")
        let bob = try Self.client(port: node.port, certificate: node.certificatePath, login: "bob")
        #expect(try Self.sync(ann, after: household.middle) == household.annSync)
        #expect(try Self.sync(bob, after: household.middle) == household.bobSync)
        let bot = try TestClient(port: node.port, certificatePath: node.certificatePath)
        #expect(try bot.last("AUTH \(household.token)").hasPrefix("OK logged in as ann with a token"))
        #expect(try bot.last("WHOAMI") == "OK ann · bot token housebot")
        let bobsRooms = try bob.json("ROOMS")["rooms"] as? [[String: Any]] ?? []
        #expect(bobsRooms.first { $0["id"] as? Int == household.room }?["unread"] as? Int == 1, "ann's newest line only: \(bobsRooms)")
        let bobsTokens = (try bob.json("TOKEN LIST")["tokens"] as? [[String: Any]] ?? []).map { "\($0["label"] ?? "")=\($0["kind"] ?? "")" }
        #expect(bobsTokens == ["phone=device"], "a device token stays a device's")
        // The overdue notice cat missed on SQLite comes with her first login here.
        let cat = try TestClient(port: node.port, certificatePath: node.certificatePath)
        #expect(try cat.last("LOGIN cat \"\(Self.password)\"").hasPrefix("OK"))
        #expect(try cat.nextEvent().contains("overdue: #"))

        // New ids continue above everything SQLite ever gave out, deleted ones included.
        let room = Self.id(try ann.json("ROOM CREATE Attic"), "room")
        #expect(room > household.deletedRoom, "room \(room) reuses an id at or below \(household.deletedRoom)")
        let task = Self.id(try ann.json("TASK ADD \(household.room) Hoover"), "task")
        #expect(task > household.deletedTask, "task \(task) reuses an id at or below \(household.deletedTask)")
        #expect(Self.id(try bob.json("SAY \(household.room) after the move"), "message") == household.lastMessage + 2)
        let after = try Self.sync(ann, after: household.lastEvent)
        let newIDs = after.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? Int }
        #expect(newIDs.first == household.lastEvent + 1 && newIDs == Array(newIDs.sorted()) && newIDs.count >= 3, "\(newIDs)")
        #expect(node.stop() == 0)
    }

    /// After the copy the folder says where its store went (password masked): chorusd,
    /// `admin` and a second copy on it stop in one line with exit 2 naming the database and
    /// the way back; deleting the marker is that way (CONTRACT §12).
    @Test func aMovedFolderIsRefusedUntilItsMarkerIsDeleted() throws {
        let household = try Self.makeHousehold()
        let secret = "M0ved-secret-pw"
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase() + " password=\(secret)"
        let copied = try Self.copy(household.folder, to: database)
        #expect(copied.status == 0, "\(copied)")
        let marker = household.folder.path + "/data/MOVED"
        let text = try String(contentsOfFile: marker, encoding: .utf8)
        #expect(text.contains("to=PostgreSQL host=127.0.0.1") && text.contains("password=****") && text.contains("at=20"), "\(text)")
        #expect(!text.contains(secret))

        func expectRefused(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let daemon = try ChorusDaemon(arguments, in: household.folder.path)
            let (status, stderr) = daemon.finish(sourceLocation: sourceLocation)
            let stdout = daemon.remainingOutput(sourceLocation: sourceLocation)
            #expect(status == 2 && stderr.split(separator: "\n").count == 1, "\(status) \(stderr)", sourceLocation: sourceLocation)
            #expect(stderr.contains("data was moved to PostgreSQL host=127.0.0.1") && stderr.contains("delete data/MOVED")
                && !stderr.contains(secret), "\(stderr)", sourceLocation: sourceLocation)
            #expect(!stdout.contains("listening"), sourceLocation: sourceLocation)
        }
        try expectRefused(["--port", "0", "--data", "data"] + Self.flags)
        try expectRefused(["admin", "grant", "ann", "--data", "data"])
        try expectRefused(["copy-to-postgres", "--data", "data", "--postgres", database])

        try FileManager.default.removeItem(atPath: marker)
        let again = try ChorusDaemon(["--port", "0", "--data", "data"] + Self.flags, in: household.folder.path)
        #expect(try again.waitUntilListening())
        again.send(SIGTERM)
        #expect(again.finish().status == 0)
    }

    /// A database with anything in it is refused in one line, exit 2, with nothing
    /// written; so is one a node is connected to, even while it is still empty.
    @Test func aDatabaseThatHoldsDataOrHasANodeIsRefusedUntouched() throws {
        let household = try Self.makeHousehold()
        let server = try ThrowawayPostgres.sharedCluster()
        let database = try server.makeDatabase()
        let node = try ChorusNode.start(postgres: database, name: "early")
        let busy = try Self.copy(household.folder, to: database)
        #expect(busy.status == 2 && busy.stderr.split(separator: "\n").count == 1, "\(busy)")
        #expect(busy.stderr.contains("chorusd is connected to the database (chorusd early"), "\(busy.stderr)")
        let client = try TestClient(port: node.port, certificatePath: node.certificatePath)
        #expect(try client.last("REGISTER dan \"\(Self.password)\"").hasPrefix("OK"))
        #expect(node.stop() == 0)

        let before = try CopiedRows.counts(postgres: database)
        let full = try Self.copy(household.folder, to: database)
        #expect(full.status == 2, "\(full)")
        #expect(full.stderr.split(separator: "\n").count == 1, "\(full.stderr)")
        #expect(full.stderr.contains("already holds data (users") && full.stderr.contains("nothing was written"),
                "\(full.stderr)")
        #expect(try CopiedRows.counts(postgres: database) == before)
    }

    /// The wrong folder, a bad URL or a wrong password: one line naming the problem, exit
    /// 2, the password masked; the SQLite store is not touched and no data folder is made.
    @Test func aMissingStoreOrUnreachableDatabaseIsOneLineAndExit2() throws {
        let folder = try TemporaryDirectory()
        let server = try ThrowawayPostgres.sharedCluster()
        let database = try server.makeDatabase()
        let missing = try Self.copy(folder, to: database, data: "nowhere")
        #expect(missing.status == 2 && missing.stderr == "chorusd: no database at nowhere/chorus.sqlite: nothing to copy "
            + "(give --data the folder chorusd ran with)\n", "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/nowhere"))

        let household = try Self.makeHousehold()
        let port = try FreePort.next()
        let secret = "S3cret-copy-pw"
        let unreachable = try Self.copy(household.folder, to: "postgresql://chorus:\(secret)@127.0.0.1:\(port)/chorus")
        #expect(unreachable.status == 2 && unreachable.stderr.split(separator: "\n").count == 1, "\(unreachable)")
        #expect(unreachable.stderr.contains("PostgreSQL postgresql://chorus:****@127.0.0.1:\(port)/chorus")
            && !unreachable.stderr.contains(secret), "\(unreachable.stderr)")
        let noURL = try ChorusDaemon(["copy-to-postgres", "--data", "data"], in: household.folder.path).finish()
        #expect(noURL.status == 2 && noURL.stderr.contains("copy-to-postgres needs --postgres URL"), "\(noURL)")

        // A running chorusd on the folder: refused before PostgreSQL is even asked.
        let running = try ChorusDaemon(["--port", "0", "--data", "data"] + Self.flags, in: household.folder.path)
        #expect(try running.waitUntilListening())
        let busy = try Self.copy(household.folder, to: database)
        #expect(busy.status == 2 && busy.stderr.contains("in use by another chorusd") && busy.stderr.contains("stop it first"),
                "\(busy)")
        running.send(SIGTERM)
        #expect(running.waitForExit(timeout: 30))
        #expect(try CopiedRows.counts(postgres: database).isEmpty)
    }
}

import ChorusSQLite
import Foundation
import Testing

/// Bot tokens and server admins over real TLS.
@Suite struct TokenAdminTests {
    /// Makes `name` a server admin straight in the database, as `chorusd admin grant` does.
    private func grantAdmin(_ name: String, on server: TestServer) throws {
        let database = try Database(path: server.configuration.databasePath)
        defer { database.close() }
        #expect(try database.setAdmin(name: name, true))
    }

    /// A token is shown once, logs a bot in as its account, is listed without its secret,
    /// and only its digest is stored.
    @Test func tokenLifecycle() throws {
        let server = try TestServer()
        let bot = try server.device("housebot")
        let created = try bot.ok("TOKEN CREATE cron")
        let secret = try #require(created["token"] as? String)
        #expect(secret.count == 64 && secret.allSatisfy(\.isHexDigit))
        #expect(try bot.failure("TOKEN CREATE cron").code == 409)
        #expect(try bot.failure("TOKEN CREATE \"bad label\"").code == 422)

        let session = try server.client()
        #expect(try session.last("AUTH \(secret)").hasPrefix("OK logged in as housebot with a token"))
        #expect(try session.last("WHOAMI") == "OK housebot · bot token cron")
        #expect(try session.last("AUTH \(String(repeating: "0", count: 64))") == "ERR 401 invalid token")

        let listing = try bot.ok("TOKEN LIST")
        let tokens = listing["tokens"] as? [JSON] ?? []
        #expect(tokens.count == 1)
        #expect(tokens.first?["label"] as? String == "cron")
        #expect(tokens.first?["last_used"] is String)
        #expect(!"\(listing)".contains(secret))

        let database = try Database(path: server.configuration.databasePath)
        defer { database.close() }
        let stored = try database.prepare("SELECT digest FROM tokens").rows { $0.text(0) }
        #expect(stored.count == 1 && stored[0] != secret && stored[0].count == 64)
    }

    /// A device token: made with kind=device, listed with its kind beside the bots', and a
    /// session that logged in with it is told which token it is (AUTH and WHOAMI), in JSON
    /// and text; a password login names none; revoking itself ends that session.
    @Test func deviceTokensNameThemselves() throws {
        let server = try TestServer()
        let ann = try server.device("ann")
        let phone = try ann.ok("TOKEN CREATE phone kind=device")
        #expect(phone["kind"] as? String == "device" && phone["label"] as? String == "phone")
        let secret = try #require(phone["token"] as? String)
        #expect(try ann.ok("TOKEN CREATE cron")["kind"] as? String == "bot")
        #expect(try ann.ok("TOKEN CREATE tablet kind=DEVICE")["kind"] as? String == "device")
        let wrongKind = try ann.failure("TOKEN CREATE watch kind=toaster")
        #expect(wrongKind.code == 422 && wrongKind.message.contains("device or bot"), "\(wrongKind)")
        #expect(try ann.failure("TOKEN CREATE watch colour=red").code == 400)
        #expect(try ann.failure("TOKEN CREATE phone kind=bot").code == 409)

        let listed = (try ann.ok("TOKEN LIST")["tokens"] as? [JSON] ?? []).map { "\($0["label"] ?? "")=\($0["kind"] ?? "")" }
        #expect(listed == ["cron=bot", "phone=device", "tablet=device"])
        let me = try ann.ok("WHOAMI")
        #expect(me["token"] == nil, "a password login names no token: \(me)")

        let browser = try Device(client: try server.client(), user: "ann", label: "browser")
        let auth = try browser.ok("AUTH \(secret)")
        #expect(object(auth["token"])["label"] as? String == "phone" && object(auth["token"])["kind"] as? String == "device", "\(auth)")
        let who = try browser.ok("WHOAMI")
        #expect(object(who["user"])["name"] as? String == "ann")
        #expect(object(who["token"])["label"] as? String == "phone" && object(who["token"])["kind"] as? String == "device", "\(who)")

        // Only a password session makes tokens: a stolen device or bot token cannot mint
        // one that outlives revoking it. Listing and revoking work from a token session.
        let minted = try browser.failure("TOKEN CREATE spare")
        #expect(minted.code == 403 && minted.message.contains("LOGIN with the password"), "\(minted)")
        let bot = try Device(client: try server.client(), user: "ann", label: "bot")
        try bot.ok("AUTH \(try #require(try ann.ok("TOKEN CREATE nightly")["token"] as? String))")
        #expect(try bot.failure("TOKEN CREATE spare kind=bot").code == 403)
        #expect(try bot.ok("TOKEN LIST")["tokens"] as? [Any] != nil)
        #expect(!((try ann.ok("TOKEN LIST")["tokens"] as? [[String: Any]]) ?? []).contains { $0["label"] as? String == "spare" })
        try bot.ok("TOKEN REVOKE tablet")

        // A token session that signs up or logs in as someone else holds no token any more.
        let switching = try Device(client: try server.client(), user: "ann", label: "switching")
        try switching.ok("AUTH \(secret)")
        try switching.ok("REGISTER zoe \"\(defaultPassword)\"")
        #expect(try switching.ok("WHOAMI")["token"] == nil)
        try switching.ok("AUTH \(secret)")
        try switching.ok("LOGIN zoe \"\(defaultPassword)\"")
        #expect(try switching.ok("WHOAMI")["token"] == nil)

        let text = try server.client()
        #expect(try text.last("AUTH \(secret)").hasPrefix("OK logged in as ann with a token"))
        #expect(try text.last("WHOAMI") == "OK ann · device token phone")
        let rows = try text.call("TOKEN LIST")
        #expect(rows.contains { $0.contains("phone") && $0.contains("device") }, "\(rows)")
        #expect(rows.contains { $0.contains("cron") && $0.contains("bot") }, "\(rows)")

        // Sign-out: the browser revokes its own token; both of its sessions end, ann's stays.
        #expect(try browser.ok("TOKEN REVOKE phone")["label"] as? String == "phone")
        #expect(try browser.event()["event"] as? String == "bye")
        #expect(try browser.client.connection.readLine() == nil)
        #expect(try text.nextEvent().hasPrefix("* bye"))
        #expect(try ann.ok("PING")["pong"] is NSNull)
        #expect(try server.client().last("AUTH \(secret)") == "ERR 401 invalid token")
    }

    /// Revoking a token closes the sessions that used it and refuses it afterwards.
    @Test func revokingClosesSessions() throws {
        let server = try TestServer()
        let bot = try server.device("housebot")
        let secret = try #require(try bot.ok("TOKEN CREATE cron")["token"] as? String)
        let session = try server.client()
        #expect(try session.last("AUTH \(secret)").hasPrefix("OK"))
        try bot.ok("TOKEN REVOKE cron")
        #expect(try session.nextEvent().hasPrefix("* bye"))
        #expect(try session.connection.readLine() == nil)
        // The password session that revoked it stays.
        #expect(try bot.ok("PING")["pong"] is NSNull)
        let later = try server.client()
        #expect(try later.last("AUTH \(secret)") == "ERR 401 invalid token")
        #expect(try bot.failure("TOKEN REVOKE cron").code == 404)
    }

    /// A bot sees and does what its account may: it posts into its rooms, and others see it.
    @Test func botActsAsItsAccount() throws {
        let server = try TestServer()
        let (alice, _, _, secret) = try server.roomWithBot()
        let cron = try server.client()
        #expect(try cron.last("AUTH \(secret)").hasPrefix("OK"))
        #expect(try cron.last("SAY Flat Bins go out tonight") == "OK said in Flat")
        let event = try alice.event()
        #expect(event["event"] as? String == "message")
        #expect(object(event["message"])["from"] as? String == "housebot")
        #expect(try cron.last("SAY 999 hello").hasPrefix("ERR 404"))
    }

    /// Every ADMIN command is 403 for people who are not server admins.
    @Test func adminCommandsNeedAnAdmin() throws {
        let server = try TestServer()
        let bob = try server.device("bob")
        for line in ["ADMIN USERS", "ADMIN ROOMS", "ADMIN STATS", "ADMIN DISABLE bob", "ADMIN ENABLE bob", "ADMIN KICK bob", "ADMIN DELETE 1"] {
            #expect(try bob.code(line) == 403, "\(line)")
        }
    }

    /// An admin lists users and rooms, reads the stats, and deletes any room.
    @Test func adminListsAndDeletes() throws {
        let server = try TestServer()
        let root = try server.device("root")
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.ok("TASK ADD \(room) Bins")
        try grantAdmin("root", on: server)
        let users = try root.ok("ADMIN USERS")["users"] as? [JSON] ?? []
        #expect(users.map { $0["name"] as? String ?? "" } == ["alice", "root"])
        #expect(users.first?["online"] as? Bool == true)
        #expect(users.last?["admin"] as? Bool == true)
        let rooms = try root.ok("ADMIN ROOMS")["rooms"] as? [JSON] ?? []
        #expect(rooms.first?["owner"] as? String == "alice")
        #expect(rooms.first?["open"] as? Int == 1)
        let stats = try root.ok("ADMIN STATS")
        #expect(stats["sessions"] as? Int == 2)
        #expect(stats["accounts"] as? Int == 2)
        #expect(stats["rooms"] as? Int == 1)
        #expect(stats["tasks"] as? Int == 1)
        #expect((stats["memory_bytes"] as? Int ?? 0) > 1_000_000)
        #expect((stats["events_last_minute"] as? Int ?? 0) >= 1)
        try root.ok("ADMIN DELETE \(room)")
        let deleted = try alice.event()
        #expect(deleted["event"] as? String == "room.deleted")
        #expect(try alice.code("ROOM SHOW \(room)") == 404)
        #expect(try root.code("ADMIN DELETE \(room)") == 404)
    }

    /// DISABLE closes the user's sessions at once and refuses their logins and tokens; ENABLE lets them back.
    @Test func disableAndEnable() throws {
        let server = try TestServer()
        let root = try server.device("root")
        let bob = try server.client()
        #expect(try bob.last("REGISTER bob \"\(defaultPassword)\"").hasPrefix("OK"))
        try bob.call("MODE json")
        let secret = try #require(try bob.json("TOKEN CREATE phone")["token"] as? String)
        try grantAdmin("root", on: server)
        try root.ok("ADMIN DISABLE bob")
        #expect(try bob.nextEvent().contains("disabled"))
        #expect(try bob.connection.readLine() == nil)
        let again = try server.client()
        #expect(try again.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("ERR 403"))
        #expect(try again.last("LOGIN bob \"not the password at all\"") == "ERR 401 wrong name or password")
        #expect(try again.last("AUTH \(secret)") == "ERR 401 invalid token")
        try root.ok("ADMIN ENABLE bob")
        #expect(try again.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK logged in as bob"))
        #expect(try root.code("ADMIN DISABLE root") == 403)
    }

    /// KICK closes every session of a user; they can log in again.
    @Test func kick() throws {
        let server = try TestServer()
        let root = try server.device("root")
        let phone = try server.user("bob")
        let laptop = try server.client()
        #expect(try laptop.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK"))
        try grantAdmin("root", on: server)
        try root.ok("ADMIN KICK bob")
        for session in [phone, laptop] {
            #expect(try session.nextEvent().hasPrefix("* bye"))
            #expect(try session.connection.readLine() == nil)
        }
        let again = try server.client()
        #expect(try again.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK"))
    }
}

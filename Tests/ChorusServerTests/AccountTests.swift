import ChorusClient
import ChorusCrypto
import ChorusSQLite
import Foundation
import Testing

/// REGISTER, LOGIN, LOGOUT, WHOAMI and PASSWORD over real TLS.
@Suite struct AccountTests {
    /// Registering logs the session in; the name is folded to lower case.
    @Test func registerLogsIn() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("WHOAMI").hasPrefix("ERR 401"))
        #expect(try client.last("REGISTER Alice \"correct horse battery staple\"") == "OK welcome alice — you are logged in")
        #expect(try client.last("WHOAMI") == "OK alice")
        try client.call("MODE json")
        let who = try client.json("WHOAMI")
        let user = who["user"] as? [String: Any]
        #expect(user?["name"] as? String == "alice")
        #expect(user?["admin"] as? Bool == false)
    }

    /// Name and password rules answer 422; a taken name answers 409.
    @Test func registrationRules() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("REGISTER a \"correct horse battery staple\"").hasPrefix("ERR 422"))
        #expect(try client.last("REGISTER bad/name \"correct horse battery staple\"").hasPrefix("ERR 422"))
        #expect(try client.last("REGISTER \(String(repeating: "x", count: 33)) \"correct horse battery staple\"").hasPrefix("ERR 422"))
        #expect(try client.last("REGISTER bob short").hasPrefix("ERR 422"))
        let long = String(repeating: "p", count: 1025)
        #expect(try client.last("REGISTER bob \(long)").hasPrefix("ERR 422"))
        #expect(try client.last("REGISTER bob \"exactly fifteen\"").hasPrefix("OK"))
        let other = try server.client()
        #expect(try other.last("REGISTER BOB \"another long password\"") == "ERR 409 name bob is taken")
    }

    /// A wrong password and an unknown name get the very same reply.
    @Test func failedLoginsLookAlike() throws {
        let server = try TestServer()
        _ = try server.user("carol")
        let client = try server.client()
        let wrongPassword = try client.last("LOGIN carol \"not the right password\"")
        let unknownName = try client.last("LOGIN nobody \"not the right password\"")
        let malformedName = try client.last("LOGIN ../etc \"not the right password\"")
        #expect(wrongPassword == "ERR 401 wrong name or password")
        #expect(unknownName == wrongPassword)
        #expect(malformedName == wrongPassword)
        #expect(try client.last("WHOAMI").hasPrefix("ERR 401"))
        #expect(try client.last("LOGIN Carol \"correct horse battery staple\"") == "OK logged in as carol · 0 rooms · 0 tasks for you")
    }

    /// Passwords keep every character: spaces, quotes, backslashes, non-ASCII; no truncation.
    @Test func passwordsAreExact() throws {
        let server = try TestServer()
        let client = try server.client()
        let password = #"sp ace \"quote\" back\\slash café ☕ "#
        #expect(try client.last("REGISTER dave \"\(password)\"").hasPrefix("OK"))
        let other = try server.client()
        #expect(try other.last("LOGIN dave \"sp ace \\\"quote\\\" back\\\\slash café ☕\"").hasPrefix("ERR 401"))
        #expect(try other.last("LOGIN dave \"\(password)\"").hasPrefix("OK"))
        let long = String(repeating: "z", count: 1024)
        #expect(try other.last("REGISTER erin \(long)").hasPrefix("OK"))
        let third = try server.client()
        #expect(try third.last("LOGIN erin \(long.dropLast())").hasPrefix("ERR 401"))
        #expect(try third.last("LOGIN erin \(long)").hasPrefix("OK"))
    }

    /// LOGOUT ends the login but not the connection; commands needing a login then get 401.
    @Test func logoutKeepsTheConnection() throws {
        let server = try TestServer()
        let client = try server.user("frank")
        #expect(try client.last("LOGOUT") == "OK logged out frank")
        #expect(try client.last("WHOAMI").hasPrefix("ERR 401"))
        #expect(try client.last("PASSWORD a b").hasPrefix("ERR 401"))
        #expect(try client.last("PING") == "OK PONG")
    }

    /// PASSWORD checks the old one, and only the new one logs in afterwards.
    @Test func passwordChange() throws {
        let server = try TestServer()
        let client = try server.user("gina")
        #expect(try client.last("PASSWORD \"wrong old password\" \"brand new password\"") == "ERR 401 the old password is wrong")
        #expect(try client.last("PASSWORD \"correct horse battery staple\" short").hasPrefix("ERR 422"))
        #expect(try client.last("PASSWORD \"correct horse battery staple\" \"brand new password\"") == "OK password changed")
        let other = try server.client()
        #expect(try other.last("LOGIN gina \"correct horse battery staple\"").hasPrefix("ERR 401"))
        #expect(try other.last("LOGIN gina \"brand new password\"") == "OK logged in as gina · 0 rooms · 0 tasks for you")
    }

    /// One account can be logged in on several connections at once.
    @Test func severalSessionsOfOneAccount() throws {
        let server = try TestServer()
        let phone = try server.user("hank")
        let laptop = try server.client()
        #expect(try laptop.last("LOGIN hank \"correct horse battery staple\"") == "OK logged in as hank · 0 rooms · 0 tasks for you")
        #expect(try phone.last("WHOAMI") == "OK hank")
        #expect(try laptop.last("WHOAMI") == "OK hank")
    }

    /// Accounts survive a restart on the same data folder.
    @Test func accountsSurviveRestart() throws {
        let server = try TestServer()
        _ = try server.user("ivy")
        try server.restart()
        let client = try server.client()
        #expect(try client.last("LOGIN ivy \"correct horse battery staple\"") == "OK logged in as ivy · 0 rooms · 0 tasks for you")
    }

    /// A hash made at an older cost still logs in, and is re-hashed at the current cost.
    @Test func olderHashesAreUpgradedAtLogin() throws {
        let directory = try TemporaryDirectory()
        let old = try TestServer(directory: directory) { $0.scrypt = ScryptParameters(logN: 8) }
        _ = try old.user("jay")
        old.stop()
        let current = try TestServer(directory: directory) { $0.scrypt = ScryptParameters(logN: 11) }
        let client = try current.client()
        #expect(try client.last("LOGIN jay \"correct horse battery staple\"") == "OK logged in as jay · 0 rooms · 0 tasks for you")
        current.stop()
        let stored = try storedHash(of: "jay", in: directory.path + "/data/chorus.sqlite")
        #expect(stored.hasPrefix("$scrypt$ln=11,r=8,p=1$"))
    }

    /// Hashing happens off the event loop: at the default cost (scrypt N=2^17), a PING
    /// from another session is answered while a registration is still being hashed.
    @Test func hashingDoesNotBlockOtherSessions() throws {
        let server = try TestServer { $0.scrypt = .default }
        let slow = try server.client()
        let other = try server.client()
        try slow.connection.send("REGISTER kim \"correct horse battery staple\"")
        #expect(try other.last("PING") == "OK PONG")
        // The PING came back first: the registration is still hashing.
        #expect(throws: LineClient.Failure.self) { try slow.connection.readLine(timeout: 0.02) }
        #expect(try slow.reply(timeout: 30).last?.hasPrefix("OK welcome kim") == true)
        let stored = try storedHash(of: "kim", in: server.configuration.databasePath)
        #expect(stored.hasPrefix("$scrypt$ln=17,r=8,p=1$"))
    }

    private func storedHash(of name: String, in path: String) throws -> String {
        let database = try Database(path: path)
        defer { database.close() }
        return try database.account(named: name)?.passwordHash ?? ""
    }
}

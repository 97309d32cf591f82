import ChorusNet
import ChorusServer
import Foundation
import Testing

/// CONTRACT §11, Sign-ups (issue 21's finding "60 REGISTERs over one connection were all
/// accepted"): `--register-rate` accounts per address per hour, `--registration invite`
/// for servers that take only invited people.
@Suite(.timeLimit(.minutes(10)))
struct SignUpTests {
    /// Loopback is exempt by default; a documentation range instead makes 127.0.0.1 count.
    static func counted(_ configuration: inout ServerConfiguration) {
        configuration.exempt = [AddressRange("192.0.2.0/24")!]
    }

    /// The error code of a text-mode final line (200 for OK).
    static func code(_ line: String) -> Int {
        if line.hasPrefix("OK") { return 200 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// 60 REGISTERs over one connection from a counted address: the first 5 make accounts,
    /// the rest get 429 saying when to try again. Refused ones (a bad name, a taken name)
    /// do not use up the allowance, and LOGIN still works for the accounts made.
    @Test func aFloodOfRegistersGetsTheRate() throws {
        let server = try TestServer(configure: Self.counted)
        let client = try server.client()
        // Refused attempts first: none of them counts.
        #expect(Self.code(try client.last("REGISTER x \"\(defaultPassword)\"")) == 422)
        #expect(Self.code(try client.last("REGISTER flood0 short")) == 422)
        var codes: [Int] = []
        var lastRefusal = ""
        for index in 0..<60 {
            let reply = try client.last("REGISTER flood\(index) \"\(defaultPassword)\"")
            codes.append(Self.code(reply))
            if Self.code(reply) == 429 { lastRefusal = reply }
        }
        #expect(Array(codes.prefix(5)) == [200, 200, 200, 200, 200], "\(codes)")
        #expect(codes.dropFirst(5).allSatisfy { $0 == 429 }, "\(codes)")
        #expect(lastRefusal.contains("try again in"), "\(lastRefusal)")
        // A taken name is 409 before the limit... and a 429 once it is reached.
        #expect(Self.code(try client.last("REGISTER flood0 \"\(defaultPassword)\"")) == 429)
        #expect(try server.client().last("LOGIN flood4 \"\(defaultPassword)\"").hasPrefix("OK"))
        #expect(Self.code(try server.client().last("LOGIN flood5 \"\(defaultPassword)\"")) == 401)

        // The count is in the store: a restart does not hand out a fresh allowance.
        try server.restart()
        #expect(Self.code(try server.client().last("REGISTER afterrestart \"\(defaultPassword)\"")) == 429)
    }

    /// A taken name (409) and a bad invite code (404) refuse the REGISTER and count nothing.
    @Test func refusedSignUpsDoNotCount() throws {
        let server = try TestServer { configuration in
            Self.counted(&configuration)
            configuration.registerRate = 2
        }
        let client = try server.client()
        #expect(Self.code(try client.last("REGISTER first \"\(defaultPassword)\"")) == 200)
        let other = try server.client()
        for _ in 0..<3 {
            #expect(Self.code(try other.last("REGISTER first \"\(defaultPassword)\"")) == 409)
            #expect(Self.code(try other.last("REGISTER second \"\(defaultPassword)\" invite=ABCD-EFGH-JKMN-PQRS")) == 404)
        }
        #expect(Self.code(try other.last("REGISTER second \"\(defaultPassword)\"")) == 200)
        #expect(Self.code(try server.client().last("REGISTER third \"\(defaultPassword)\"")) == 429)
    }

    /// Loopback stays exempt by default: 8 sign-ups from 127.0.0.1 with a rate of 2.
    @Test func exemptAddressesHaveNoLimit() throws {
        let server = try TestServer { $0.registerRate = 2 }
        let client = try server.client()
        for index in 0..<8 {
            #expect(Self.code(try client.last("REGISTER local\(index) \"\(defaultPassword)\"")) == 200, "sign-up \(index)")
        }
    }

    /// `--registration invite`: the first account of an empty store needs no code; after
    /// it, no code is 403; a room's code makes the account and joins the room (its members
    /// hear `member.added`); a used-up or unknown code is 403 and makes no account.
    @Test func inviteOnlyServer() throws {
        let server = try TestServer { $0.registration = .invite }
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        let code = try #require(try alice.ok("ROOM INVITE \(room) uses=1")["code"] as? String)

        let stranger = try Device(client: try server.client(), user: "mallory", label: "mallory")
        let refused = try stranger.failure("REGISTER mallory \"\(defaultPassword)\"")
        #expect(refused.code == 403, "\(refused)")
        #expect(refused.message.contains("invite=CODE"), "\(refused)")
        #expect(try stranger.failure("LOGIN mallory \"\(defaultPassword)\"").code == 401)

        let bob = try Device(client: try server.client(), user: "bob", label: "bob")
        let joined = try bob.ok("REGISTER bob \"\(defaultPassword)\" invite=\(code.lowercased())")
        #expect(object(joined["user"])["name"] as? String == "bob", "\(joined)")
        #expect(id(joined["room"]) == room, "\(joined)")
        let added = try alice.event()
        #expect(added["event"] as? String == "member.added", "\(added)")
        #expect(added["user"] as? String == "bob" && added["room"] as? Int == room, "\(added)")
        #expect(added["by"] as? String == "bob", "\(added)")
        let members = object(try alice.ok("ROOM SHOW \(room)")["room"])["members"] as? [JSON] ?? []
        #expect(Set(members.compactMap { $0["name"] as? String }) == ["alice", "bob"], "\(members)")
        // bob is in: he sees the room's messages from now on.
        try alice.ok("SAY \(room) welcome bob")
        #expect(try bob.event()["event"] as? String == "message")

        // The code had one use: it is gone, and no account is made with it.
        let usedUp = try stranger.failure("REGISTER carol \"\(defaultPassword)\" invite=\(code)")
        #expect(usedUp.code == 403, "\(usedUp)")
        #expect(try stranger.failure("REGISTER carol \"\(defaultPassword)\" invite=nonsense").code == 403)
        #expect(try stranger.failure("LOGIN carol \"\(defaultPassword)\"").code == 401)
        try alice.expectQuiet("after refused sign-ups")
    }

    /// On an open server `invite=CODE` joins too; a bad code is ROOM JOIN's 404 and makes
    /// no account, so the name stays free.
    @Test func openServerTakesAnInviteToo() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let code = try #require(try alice.ok("ROOM INVITE \(room)")["code"] as? String)
        let dave = try Device(client: try server.client(), user: "dave", label: "dave")
        let bad = try dave.failure("REGISTER dave \"\(defaultPassword)\" invite=2222-3333-4444-5555")
        #expect(bad.code == 404 && bad.message.contains("no such invite code"), "\(bad)")
        #expect(try dave.failure("LOGIN dave \"\(defaultPassword)\"").code == 401)
        let joined = try dave.ok("REGISTER dave \"\(defaultPassword)\" invite=\(code)")
        #expect(id(joined["room"]) == room, "\(joined)")
        #expect(try alice.event()["event"] as? String == "member.added")
        // No invite: an account in no room, as before.
        #expect(id(try Device(client: try server.client(), user: "erin", label: "erin")
            .ok("REGISTER erin \"\(defaultPassword)\"")["room"]) == -1)
    }

    /// HELP REGISTER shows the option.
    @Test func helpShowsTheInviteOption() throws {
        let server = try TestServer()
        let help = try server.client().call("HELP REGISTER")
        #expect(help.joined(separator: "\n").contains("[invite=CODE]"), "\(help)")
    }
}

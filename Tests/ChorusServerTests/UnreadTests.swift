import Foundation
import Testing

/// Unread markers over real TLS (`READ R EVENT_ID`, CONTRACT §4): counts on ROOMS and the
/// login line, READ on one device reaching the person's others, and the household boundary.
@Suite struct UnreadTests {
    /// The first room of a ROOMS reply.
    private func firstRoom(_ device: Device) throws -> JSON {
        object((try device.ok("ROOMS")["rooms"] as? [JSON])?.first)
    }

    /// bob's ROOMS counts what alice says and comments; READ on his phone clears it up to
    /// the id, tells his laptop (`room.read`) and nobody else; a lower id changes nothing;
    /// an id past the room's newest event is clamped to it.
    @Test func readClearsUnreadOnEveryDevice() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob", label: "bob's phone")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        let laptop = try server.device("bob", label: "bob's laptop", register: false)
        _ = try bob.drain()
        _ = try alice.drain()
        #expect(try firstRoom(bob)["unread"] as? Int == 0)

        // READ takes event ids, as bob's sessions see them.
        try alice.ok("SAY \(room) bins tonight")
        let first = try #require(try bob.event()["id"] as? Int)
        let task = id(try alice.ok("TASK ADD \(room) Bins")["task"])
        try alice.ok("COMMENT \(task) the blue one")
        try alice.ok("SAY \(room) and the glass")
        _ = try bob.event()
        _ = try bob.event()
        let third = try #require(try bob.event()["id"] as? Int)
        try bob.ok("SAY \(room) on it")
        #expect(try firstRoom(bob)["unread"] as? Int == 3, "two messages and a comment by alice; not task.added, not bob's own")
        #expect(try firstRoom(alice)["unread"] as? Int == 1, "alice: bob's message")
        let shown = try bob.ok("ROOM SHOW \(room)")
        #expect(object(shown["room"])["unread"] as? Int == 3)
        _ = try bob.drain()
        _ = try laptop.drain()
        // alice's last event is bob's "on it", the room's newest.
        let newestInRoom = try #require(try alice.drain().compactMap { $0["id"] as? Int }.max())

        let read = try bob.ok("READ \(room) \(first)")
        #expect(read["room"] as? Int == room && read["last_read"] as? Int == first && read["unread"] as? Int == 2, "\(read)")
        let told = try laptop.event()
        #expect(told["event"] as? String == "room.read" && told["room"] as? Int == room && told["by"] as? String == "bob", "\(told)")
        #expect(told["last_read"] as? Int == first && told["unread"] as? Int == 2, "\(told)")
        try bob.expectQuiet("for its own READ (it has the reply)")
        try alice.expectQuiet("for bob's READ")
        #expect(try firstRoom(laptop)["unread"] as? Int == 2)

        let lower = try bob.ok("READ \(room) 1")
        #expect(lower["last_read"] as? Int == first && lower["unread"] as? Int == 2, "a lower id changes nothing: \(lower)")
        try laptop.expectQuiet("for a READ that moved nothing")

        // Another room's events are newer still; the clamp is this room's newest, so the
        // reply says nothing of how much happens elsewhere on the server.
        let elsewhere = id(try alice.ok("ROOM CREATE Elsewhere")["room"])
        try alice.ok("SAY \(elsewhere) not in Flat 2B")
        let future = try bob.ok("READ \(room) 999999999")
        let clamped = try #require(future["last_read"] as? Int)
        #expect(clamped == newestInRoom && clamped > third, "clamped to the room's newest event: \(future)")
        #expect(future["unread"] as? Int == 0)
        let movedAgain = try laptop.event()
        #expect(movedAgain["event"] as? String == "room.read" && movedAgain["last_read"] as? Int == clamped, "\(movedAgain)")
        // Nothing said after the clamp is marked read by it.
        try alice.ok("SAY \(room) one more")
        #expect(try firstRoom(bob)["unread"] as? Int == 1)

        // SYNC gives bob his markers' moves, and alice none of them.
        let bobs = try bob.ok("SYNC 0")["events"] as? [JSON] ?? []
        #expect(bobs.filter { $0["event"] as? String == "room.read" }.count == 2)
        let alices = try alice.ok("SYNC 0")["events"] as? [JSON] ?? []
        #expect(!alices.contains { $0["event"] as? String == "room.read" }, "another's markers are theirs alone")
    }

    /// A room the caller is not in answers READ like one that does not exist; a bad id is a
    /// usage error; an invitation alone shows no unread count.
    @Test func outsidersLearnNothing() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let carol = try server.device("carol")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        let said = id(try alice.ok("SAY \(room) private")["message"])
        let outside = try carol.failure("READ \(room) \(said)")
        let missing = try carol.failure("READ 999999 \(said)")
        #expect(outside.code == 404 && missing.code == 404)
        #expect(shape(outside.message) == shape(missing.message), "\(outside) vs \(missing)")
        #expect(try carol.failure("READ Flat 1").code == 404)
        #expect(try alice.failure("READ \(room) soon").code == 400)
        #expect(try alice.failure("READ \(room) -3").code == 400)
        #expect(try alice.failure("READ \(room)").code == 400)

        #expect(try alice.ok("ROOM ADD \(room) carol")["invited"] as? Bool == true)
        let invited = try firstRoom(carol)
        #expect(invited["unread"] == nil, "an invitation shows no count: \(invited)")

        // What the room said before carol joined is history to her, not news.
        let accepted = try carol.ok("ROOM ACCEPT \(room)")
        #expect(object(accepted["room"])["unread"] as? Int == 0, "\(accepted)")
        #expect(try firstRoom(carol)["unread"] as? Int == 0)
        let code = try #require(try alice.ok("ROOM INVITE \(room)")["code"] as? String)
        let dan = try server.device("dan")
        #expect(object(try dan.ok("ROOM JOIN \(code)")["room"])["unread"] as? Int == 0)
        #expect(try firstRoom(dan)["unread"] as? Int == 0)
        try alice.ok("SAY \(room) welcome both")
        #expect(try firstRoom(carol)["unread"] as? Int == 1)
        #expect(try firstRoom(dan)["unread"] as? Int == 1)
    }

    /// The login line tells what is new, per room: JSON `unread` and text "· 2 new in Flat 2B";
    /// text ROOMS says "2 new" on the room's line. A device token's AUTH carries it too.
    @Test func loginAndRoomsSayWhatIsNew() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let flat = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        let attic = id(try alice.ok("ROOM CREATE Attic")["room"])
        try alice.add("bob", to: flat)
        try alice.add("bob", to: attic)
        let phone = try #require(try bob.ok("TOKEN CREATE phone kind=device")["token"] as? String)
        try alice.ok("SAY \(flat) one")
        try alice.ok("SAY \(flat) two")

        let again = try Device(client: try server.client(), user: "bob", label: "bob again")
        let login = try again.ok("LOGIN bob \"\(defaultPassword)\"")
        let unread = login["unread"] as? [JSON] ?? []
        #expect(unread.count == 1, "only rooms with something new: \(login)")
        #expect(unread.first?["room"] as? Int == flat && unread.first?["name"] as? String == "Flat 2B"
                && unread.first?["unread"] as? Int == 2, "\(login)")
        let byToken = try Device(client: try server.client(), user: "bob", label: "bob's phone")
        #expect((try byToken.ok("AUTH \(phone)")["unread"] as? [JSON])?.count == 1)

        let text = try server.client()
        let line = try text.last("LOGIN bob \"\(defaultPassword)\"")
        #expect(line.hasPrefix("OK logged in as bob") && line.hasSuffix(" · 2 new in Flat 2B"), "\(line)")
        let rows = try text.call("ROOMS")
        #expect(rows.contains { $0.contains("Flat 2B") && $0.hasSuffix("2 new") }, "\(rows)")
        #expect(rows.contains { $0.contains("Attic") && !$0.contains("new") }, "\(rows)")

        #expect(try text.last("READ \(flat) 999999999").contains("nothing new"))
        let quiet = try server.client().last("LOGIN bob \"\(defaultPassword)\"")
        #expect(!quiet.contains("new in"), "\(quiet)")
        let fresh = try Device(client: try server.client(), user: "dan", label: "dan")
        #expect((try fresh.ok("REGISTER dan \"\(defaultPassword)\"")["unread"] as? [JSON])?.isEmpty == true)
    }
}

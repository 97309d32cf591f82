import Foundation
import Testing

/// Rooms by name, invite codes, and deleting a room.
@Suite struct RoomTests {
    /// A room can be named instead of numbered, in any letter case; a name two of your rooms share gets 409 listing both ids.
    @Test func roomsByName() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let first = id(try alice.ok("ROOM CREATE Flat 2B")["room"])

        for spelling in ["\"Flat 2B\"", "\"flat 2b\"", "\"FLAT 2B\""] {
            let shown = object(try alice.ok("ROOM SHOW \(spelling)")["room"])
            #expect(shown["id"] as? Int == first, "ROOM SHOW \(spelling)")
            #expect(shown["name"] as? String == "Flat 2B")
        }
        // Names count only among your own rooms: bob's namesake does not get in alice's way.
        let bobs = id(try bob.ok("ROOM CREATE Flat 2B")["room"])
        #expect(id(try bob.ok("ROOM SHOW \"Flat 2B\"")["room"]) == bobs)
        #expect(id(try alice.ok("ROOM SHOW \"flat 2b\"")["room"]) == first)

        let second = id(try alice.ok("ROOM CREATE flat 2b")["room"])
        let ambiguous = try alice.failure("ROOM SHOW \"Flat 2B\"")
        #expect(ambiguous.code == 409)
        #expect(ambiguous.message.contains("#\(first)"), "\(ambiguous.message)")
        #expect(ambiguous.message.contains("#\(second)"), "\(ambiguous.message)")
        #expect(!ambiguous.message.contains("#\(bobs)"), "\(ambiguous.message)")
        #expect(try alice.code("SAY \"Flat 2B\" hello") == 409)
        #expect(try alice.code("TASK ADD \"flat 2b\" \"Take out trash\"") == 409)
        // Ids still pick one.
        #expect(id(try alice.ok("ROOM SHOW \(first)")["room"]) == first)
        #expect(id(try alice.ok("ROOM SHOW #\(second)")["room"]) == second)
        #expect(try alice.code("ROOM SHOW \"No such place\"") == 404)
        // After a rename the name is unique again.
        try alice.ok("ROOM RENAME \(second) Garden shed")
        #expect(id(try alice.ok("ROOM SHOW \"flat 2B\"")["room"]) == first)
        #expect(id(try alice.ok("ROOM SHOW \"garden SHED\"")["room"]) == second)
    }

    /// Room names outside ASCII match in any letter case too (Küche, KÜCHE).
    @Test func nonASCIIRoomNamesIgnoreCase() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Küche")["room"])
        #expect(id(try alice.ok("ROOM SHOW küche")["room"]) == room)
        #expect(id(try alice.ok("ROOM SHOW KÜCHE")["room"]) == room)
    }

    /// An invite code is 16 unambiguous symbols in groups of four, works typed loosely, runs out after its uses, and can be listed and cancelled.
    @Test func inviteCodes() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let dave = try server.device("dave")
        let erin = try server.device("erin")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])

        let invite = try alice.ok("ROOM INVITE \(room) uses=2")
        let code = invite["code"] as? String ?? ""
        #expect(code.wholeMatch(of: /[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}/) != nil,
                "code \(code)")
        #expect(!code.contains { "01OIL".contains($0) })
        #expect(invite["uses_left"] as? Int == 2)

        // Lower case works; the existing members hear about the newcomer.
        let joined = object(try bob.ok("ROOM JOIN \(code.lowercased())")["room"])
        #expect(joined["id"] as? Int == room)
        #expect(joined["role"] as? String == "member")
        for event in try expectFanout("member.added", by: "bob", room: room, issuer: bob, to: [alice], notTo: [carol, dave, erin]) {
            #expect(event["user"] as? String == "bob")
        }
        // Joining twice is a conflict and does not use the code up.
        #expect(try bob.code("ROOM JOIN \(code)") == 409)
        // Without dashes works too.
        try carol.ok("ROOM JOIN \(code.replacingOccurrences(of: "-", with: ""))")
        try expectFanout("member.added", by: "carol", room: room, issuer: carol, to: [alice, bob], notTo: [dave, erin])
        // Two uses, so the third is turned away like a code that never existed.
        let usedUp = try dave.failure("ROOM JOIN \(code)")
        #expect(usedUp.code == 404)
        #expect(try dave.code("ROOM JOIN 2345-6789-ABCD-EFGH") == 404)
        #expect(try dave.code("ROOM SHOW \(room)") == 404)

        // Past and unreadable expiry times and silly use counts are bad values.
        for bad in ["expires=2020-01-01", "expires=+0m", "expires=someday", "uses=0", "uses=-3", "uses=lots"] {
            #expect(try alice.code("ROOM INVITE \(room) \(bad)") == 422, "ROOM INVITE \(bad)")
        }
        let soon = try alice.ok("ROOM INVITE \(room) expires=+1m")["code"] as? String ?? ""
        let spare = try alice.ok("ROOM INVITE \(room)")["code"] as? String ?? ""

        // ROOM INVITES lists the live codes; ROOM UNINVITE cancels one.
        let listed = (try alice.ok("ROOM INVITES \(room)")["invites"] as? [JSON] ?? []).compactMap { $0["code"] as? String }
        #expect(Set(listed) == [soon, spare])
        #expect(try bob.code("ROOM INVITES \(room)") == 403)
        try alice.ok("ROOM UNINVITE \(room) \(spare.lowercased())")
        let after = (try alice.ok("ROOM INVITES \(room)")["invites"] as? [JSON] ?? []).compactMap { $0["code"] as? String }
        #expect(after == [soon])
        #expect(try dave.code("ROOM JOIN \(spare)") == 404)
        #expect(try alice.code("ROOM UNINVITE \(room) \(spare)") == 404)
        // The one with an expiry a minute away still works.
        try erin.ok("ROOM JOIN \(soon)")
        let members = object(try alice.ok("ROOM SHOW \(room)")["room"])["members"] as? [JSON] ?? []
        #expect(Set(members.compactMap { $0["name"] as? String }) == ["alice", "bob", "carol", "erin"])
    }

    /// ROOM SHOW lists the members with their roles, owner first, and whether each has a session open now.
    @Test func roomShowListsMembersAndWhoIsOnline() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let carol = try server.device("carol")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("carol", to: room)
        try alice.add("bob", to: room)
        try alice.ok("ROOM ROLE \(room) carol admin")
        try carol.ok("LOGOUT")

        let shown = object(try bob.ok("ROOM SHOW \(room)")["room"])
        #expect(shown["name"] as? String == "Flat 2B")
        #expect(shown["role"] as? String == "member")
        let members = (shown["members"] as? [JSON] ?? []).map {
            "\($0["name"] as? String ?? "?") \($0["role"] as? String ?? "?") \(($0["online"] as? Bool).map { $0 ? "online" : "away" } ?? "?")"
        }
        #expect(members == ["alice owner online", "carol admin away", "bob member online"])
    }

    /// Deleting a room takes its tasks, comments and messages with it: former members get 404 for all of them.
    @Test func deletingARoomRemovesItsTasksAndMessages() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        let other = id(try alice.ok("ROOM CREATE Allotment")["room"])
        try alice.add("bob", to: room)
        let task = id(try bob.ok("TASK ADD \(room) \"Take out trash\" assign=bob due=tomorrow")["task"])
        let sub = id(try bob.ok("TASK ADD \(room) \"Find the bin\" parent=\(task)")["task"])
        try bob.ok("COMMENT \(task) the blue one")
        try bob.ok("SAY \(room) bins tonight")
        let kept = id(try alice.ok("TASK ADD \(other) \"Dig potatoes\"")["task"])

        try alice.ok("ROOM DELETE \(room)")
        for device in [alice, bob] {
            for line in ["TASK SHOW \(task)", "TASK SHOW \(sub)", "TASK DONE \(task)", "COMMENT \(task) hello?",
                         "HISTORY \(room)", "ROOM SHOW \(room)", "TASKS \(room) all", "SAY \(room) anyone?"] {
                #expect(try device.code(line) == 404, "\(device.label): \(line)")
            }
            let tasks = try device.ok("TASKS mine all")["tasks"] as? [JSON] ?? []
            #expect(!tasks.contains { $0["id"] as? Int == task }, "\(device.label) still lists #\(task)")
        }
        let bobsRooms = try bob.ok("ROOMS")["rooms"] as? [JSON] ?? []
        #expect(bobsRooms.isEmpty)
        // The other room is untouched.
        #expect(id(try alice.ok("TASK SHOW \(kept)")["task"]) == kept)
        #expect((try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []).map { $0["id"] as? Int } == [other])
    }
}

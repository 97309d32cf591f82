import Foundation
import Testing

/// Who may reach whom (CONTRACT §11), through the real server over TLS: a stranger's ROOM
/// ADD is an invitation, a stranger's DM is a 404, a block drops invitations and DMs
/// without telling, and a removal holds against invite codes.
@Suite struct ConsentTests {
    /// alice and bob share Flat 2B; dave shares nothing with anyone.
    private func neighbours() throws -> (server: TestServer, alice: Device, bob: Device, dave: Device, flat: Int) {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let dave = try server.device("dave")
        let flat = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: flat)
        for device in [alice, bob, dave] { _ = try device.drain() }
        return (server, alice, bob, dave, flat)
    }

    /// The finding: `ROOM ADD 2 alice` by a stranger made alice a member at once, and his
    /// task assigned to her reached her. Now she is only asked, sees nothing of the room but
    /// its name and who asked, and cannot be given its chores until she says yes.
    @Test func aStrangersRoomAddIsAnInvitationTheInviteeDecides() throws {
        let (_, alice, bob, dave, _) = try neighbours()
        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        let chore = id(try dave.ok("TASK ADD \(den) \"Wash my car\" due=+1d")["task"])

        let reply = try dave.ok("ROOM ADD \(den) alice")
        #expect(reply["invited"] as? Bool == true)
        #expect(object(reply["room"])["id"] as? Int == den)
        let invited = try alice.event()
        #expect(invited["event"] as? String == "room.invited")
        #expect(invited["by"] as? String == "dave")
        #expect(invited["room"] as? Int == den)
        #expect(invited["name"] as? String == "Den")
        #expect(invited["invited_by"] as? String == "dave")
        #expect(invited["task"] == nil && invited["members"] == nil && invited["progress"] == nil)
        try bob.expectQuiet("an invitation to alice alone")

        // Not a member: nothing of the room, and none of its chores.
        let rooms = try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []
        let entry = try #require(rooms.first { $0["id"] as? Int == den })
        #expect(entry["role"] as? String == "invited")
        #expect(entry["invited_by"] as? String == "dave")
        #expect(entry["name"] as? String == "Den")
        #expect(entry["progress"] == nil && entry["open"] == nil && entry["members"] == nil)
        for line in ["ROOM SHOW \(den)", "HISTORY \(den)", "TASKS \(den) all", "TASK SHOW \(chore)", "SAY \(den) hi"] {
            #expect(try alice.code(line) == 404, "\(line)")
        }
        #expect(try dave.failure("TASK ASSIGN \(chore) alice").code == 404)
        #expect(try dave.failure("TASK ADD \(den) Mow assign=alice").code == 404)
        let members = (object(try dave.ok("ROOM SHOW \(den)")["room"])["members"] as? [JSON] ?? []).compactMap { $0["name"] as? String }
        #expect(members == ["dave"])

        // No: the invitation is gone, and nobody is told.
        try alice.ok("ROOM DECLINE Den")
        #expect((try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []).allSatisfy { $0["id"] as? Int != den })
        try dave.expectQuiet("a declined invitation")
        #expect(try alice.failure("ROOM ACCEPT \(den)") == (404, "no invitation to room \(den)"))

        // Asked again, yes: now she is in and the room hears of it.
        try dave.ok("ROOM ADD \(den) alice")
        #expect(try alice.event()["event"] as? String == "room.invited")
        let accepted = try alice.ok("ROOM ACCEPT \(den)")
        #expect(object(accepted["room"])["role"] as? String == "member")
        let added = try dave.event()
        #expect(added["event"] as? String == "member.added" && added["user"] as? String == "alice" && added["by"] as? String == "alice")
        try dave.ok("TASK ASSIGN \(chore) alice")
        #expect(try alice.event()["event"] as? String == "task.updated")
        // A second answer finds nothing to answer.
        #expect(try alice.code("ROOM ACCEPT \(den)") == 404)
    }

    /// A housemate (someone who shares a room with the caller now) is added at once.
    @Test func aHousemateIsAddedAtOnce() throws {
        let (_, alice, bob, _, _) = try neighbours()
        let attic = id(try alice.ok("ROOM CREATE Attic")["room"])
        let reply = try alice.ok("ROOM ADD \(attic) bob")
        #expect(reply["invited"] as? Bool == false)
        let added = try bob.event()
        #expect(added["event"] as? String == "member.added" && added["by"] as? String == "alice" && added["user"] as? String == "bob")
        #expect(object(try bob.ok("ROOM SHOW \(attic)")["room"])["role"] as? String == "member")
    }

    /// Text mode says what happened in words, as CONTRACT §11 gives them.
    @Test func textModeSaysTheyAreInOnceTheyAccept() throws {
        let server = try TestServer()
        let owner = try server.user("olive")
        _ = try server.user("bob")
        #expect(try owner.last("ROOM CREATE Flat 2B").hasPrefix("OK created"))
        #expect(try owner.last("ROOM ADD 1 bob") == "OK invited bob to Flat 2B — they are in once they accept")
        let bob = try server.client()
        let login = try bob.last("LOGIN bob \"\(defaultPassword)\"")
        #expect(login == "OK logged in as bob · 0 rooms · 0 tasks for you · 1 invitation", "\(login)")
        let listing = try bob.call("ROOMS")
        #expect(listing.last == "OK 0 rooms · 1 invitation", "\(listing)")
        #expect(listing.first?.contains("Flat 2B") == true && listing.first?.contains("invited by olive") == true, "\(listing)")
    }

    /// An invitation to someone with no session waits for their next login, and a restart.
    @Test func anInvitationWaitsForTheNextLoginAlsoAcrossARestart() throws {
        let server = try TestServer()
        let dave = try server.device("dave")
        let away = try server.device("alice")
        away.client.connection.close()
        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        try dave.ok("ROOM ADD \(den) alice")
        try server.restart()

        let back = try Device(client: try server.client(), user: "alice", label: "alice back")
        try back.ok("LOGIN alice \"\(defaultPassword)\"")
        let held = try back.event()
        #expect(held["event"] as? String == "room.invited" && held["room"] as? Int == den && held["by"] as? String == "dave")
        // Once: the next login has nothing held.
        let again = try Device(client: try server.client(), user: "alice", label: "alice again")
        try again.ok("LOGIN alice \"\(defaultPassword)\"")
        try again.expectQuiet("after the invitation was delivered once")
        // SYNC has it too, and ROOMS lists it until it is answered.
        let synced = (try again.ok("SYNC 0")["events"] as? [JSON] ?? []).map { $0["event"] as? String ?? "" }
        #expect(synced == ["room.invited"])
        #expect((try again.ok("ROOMS")["rooms"] as? [JSON] ?? []).first?["role"] as? String == "invited")
    }

    /// The finding: `DM alice ...` from a stranger was delivered. Now it is the same 404 as
    /// a name nobody has; a housemate's DM goes through.
    @Test func aStrangersDMIsANameThatDoesNotExist() throws {
        let (_, alice, bob, dave, _) = try neighbours()
        let stranger = try dave.failure("DM alice hello, neighbour")
        let nobody = try dave.failure("DM zed hello, neighbour")
        #expect(stranger == (404, "no such user alice"))
        #expect(nobody == (404, "no such user zed"))
        try alice.expectQuiet("a stranger's DM")
        let synced = try alice.ok("SYNC 0 500")["events"] as? [JSON] ?? []
        #expect(synced.allSatisfy { $0["event"] as? String != "dm" })

        try bob.ok("DM alice milk?")
        let dm = try alice.event()
        #expect(dm["event"] as? String == "dm" && object(dm["message"])["text"] as? String == "milk?")
    }

    /// A blocked person's invitations and DMs are dropped, and their replies are exactly
    /// what they would have been; a housemate who blocked the caller is not added at once.
    @Test func aBlockDropsInvitationsAndDMsWithoutTellingTheBlocked() throws {
        let (_, alice, bob, dave, _) = try neighbours()
        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        let attic = id(try bob.ok("ROOM CREATE Attic")["room"])
        // An invitation already open ends with the block.
        try dave.ok("ROOM ADD \(den) alice")
        #expect(try alice.event()["event"] as? String == "room.invited")
        let blocked = try alice.ok("BLOCK dave")
        #expect(blocked["blocked"] as? Bool == true && blocked["user"] as? String == "dave")
        #expect((try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []).allSatisfy { $0["id"] as? Int != den })
        try alice.ok("BLOCK bob")
        let list = (try alice.ok("BLOCKS")["blocks"] as? [JSON] ?? []).compactMap { $0["name"] as? String }
        #expect(list == ["bob", "dave"])

        // dave's next invitation: answered as any invitation, and nothing reaches alice.
        let dropped = try dave.ok("ROOM ADD \(den) alice")
        #expect(dropped["invited"] as? Bool == true && object(dropped["room"])["id"] as? Int == den)
        // bob shares Flat 2B with alice, but she blocked him: he cannot pull her in either.
        let housemate = try bob.ok("ROOM ADD \(attic) alice")
        #expect(housemate["invited"] as? Bool == true)
        // bob's DM: OK with the message, as delivered; alice gets nothing, bob's SYNC shows it sent.
        let sent = try bob.ok("DM alice are you there?")
        #expect(object(sent["message"])["to"] as? String == "alice")
        try alice.expectQuiet("invitations and a DM from people she blocked")
        #expect((try alice.ok("ROOMS")["rooms"] as? [JSON] ?? []).count == 1)
        let alicesDMs = (try alice.ok("SYNC 0 500")["events"] as? [JSON] ?? []).filter { $0["event"] as? String == "dm" }
        #expect(alicesDMs.isEmpty)
        let bobsDMs = (try bob.ok("SYNC 0 500")["events"] as? [JSON] ?? []).filter { $0["event"] as? String == "dm" }
        #expect(bobsDMs.count == 1)
        // Sharing a room is unaffected: bob's chat in Flat 2B still reaches her.
        try bob.ok("SAY \"Flat 2B\" still here")
        #expect(try alice.event()["event"] as? String == "message")

        // Unblocked, dave's invitations reach her again.
        #expect(try alice.ok("UNBLOCK dave")["blocked"] as? Bool == false)
        try dave.ok("ROOM ADD \(den) alice")
        #expect(try alice.event()["event"] as? String == "room.invited")
        #expect(try alice.failure("BLOCK alice") == (422, "you cannot block yourself"))
        #expect(try alice.code("BLOCK zed") == 404)
    }

    /// The finding: dave, removed, came back with the same invite code. A removal now holds
    /// against every code of the room until an owner or admin adds him again.
    @Test func aRemovalHoldsAgainstInviteCodesUntilAnAdminAddsThemAgain() throws {
        let (_, alice, _, dave, flat) = try neighbours()
        let code = try alice.ok("ROOM INVITE \(flat)")["code"] as? String ?? ""
        try dave.ok("ROOM JOIN \(code)")
        try alice.ok("ROOM REMOVE \(flat) dave")
        let refused = try dave.failure("ROOM JOIN \(code)")
        #expect(refused.code == 403 && refused.message.contains("removed"), "\(refused)")
        let fresh = try alice.ok("ROOM INVITE \(flat)")["code"] as? String ?? ""
        #expect(try dave.code("ROOM JOIN \(fresh)") == 403)
        #expect(try dave.code("HISTORY \(flat)") == 404)

        // Added again by the owner (an invitation: he shares no room with her now).
        #expect(try alice.ok("ROOM ADD \(flat) dave")["invited"] as? Bool == true)
        try dave.ok("ROOM ACCEPT \(flat)")
        // Leaving is not a removal: a code lets him back.
        try dave.ok("ROOM LEAVE \(flat)")
        try dave.ok("ROOM JOIN \(fresh)")
    }

    /// ROOM REMOVE of someone only invited withdraws the invitation, and keeps them out of
    /// the codes; its answer is the same for someone invited, never asked, or who blocked
    /// the caller (whose invitation was dropped), so it cannot probe blocks or declines.
    @Test func removingSomeoneInvitedWithdrawsTheInvitation() throws {
        let (server, alice, _, dave, flat) = try neighbours()
        let erin = try server.device("erin")
        let fay = try server.device("fay")
        try fay.ok("BLOCK alice")
        try alice.ok("ROOM ADD \(flat) dave")
        #expect(try dave.event()["event"] as? String == "room.invited")
        try alice.ok("ROOM ADD \(flat) fay")
        let answers = try ["dave", "erin", "fay"].map { name in
            let reply = try alice.send("ROOM REMOVE \(flat) \(name)")
            return (reply["type"] as? String ?? "", object(reply["room"])["id"] as? Int ?? -1)
        }
        #expect(answers.allSatisfy { $0 == ("ok", flat) }, "\(answers)")
        let words = try server.client()
        #expect(try words.last("LOGIN alice \"\(defaultPassword)\"").hasPrefix("OK"))
        let texts = try ["dave", "erin", "fay"].map { try words.last("ROOM REMOVE \(flat) \($0)") }
        #expect(texts == ["dave", "erin", "fay"].map { "OK \($0) is not in Flat 2B: any invitation is withdrawn, and its invite codes no longer let them in" },
                "\(texts)")
        try fay.expectQuiet("an invitation from someone fay blocked")
        try erin.expectQuiet("a ROOM REMOVE of someone never asked")
        #expect(try dave.code("ROOM ACCEPT \(flat)") == 404)
        let code = try alice.ok("ROOM INVITE \(flat)")["code"] as? String ?? ""
        #expect(try dave.code("ROOM JOIN \(code)") == 403)
    }

    /// A removed stranger invited back who declines stays out of the codes; accepting is
    /// what lets them back.
    @Test func aRemovalHoldsUntilTheInvitationBackIsAccepted() throws {
        let (_, alice, _, dave, flat) = try neighbours()
        let code = try alice.ok("ROOM INVITE \(flat)")["code"] as? String ?? ""
        try dave.ok("ROOM JOIN \(code)")
        try alice.ok("ROOM REMOVE \(flat) dave")
        try alice.ok("ROOM ADD \(flat) dave")
        try dave.ok("ROOM DECLINE \(flat)")
        #expect(try dave.code("ROOM JOIN \(code)") == 403)
        try alice.ok("ROOM ADD \(flat) dave")
        try dave.ok("ROOM ACCEPT \(flat)")
        try dave.ok("ROOM LEAVE \(flat)")
        try dave.ok("ROOM JOIN \(code)")
    }

    /// One account may have 50 invitations to non-housemates waiting at once; housemates
    /// do not count, and an answer makes room for the next.
    @Test func openInvitationsAreCapped() throws {
        let (_, alice, bob, dave, _) = try neighbours()
        let shed = id(try dave.ok("ROOM CREATE Shed")["room"])
        try dave.ok("ROOM ADD \(shed) bob")
        try bob.ok("ROOM ACCEPT \(shed)")
        let rooms = try (0...50).map { id(try dave.ok("ROOM CREATE Den \($0)")["room"]) }
        for room in rooms.prefix(50) { #expect(try dave.ok("ROOM ADD \(room) alice")["invited"] as? Bool == true) }
        let refused = try dave.failure("ROOM ADD \(rooms[50]) alice")
        #expect(refused.code == 429 && refused.message.contains("50 invitations"), "\(refused)")
        // A housemate is still added at once.
        #expect(try dave.ok("ROOM ADD \(rooms[1]) bob")["invited"] as? Bool == false)
        try alice.ok("ROOM DECLINE \(rooms[2])")
        #expect(try dave.ok("ROOM ADD \(rooms[50]) alice")["invited"] as? Bool == true)
    }
}

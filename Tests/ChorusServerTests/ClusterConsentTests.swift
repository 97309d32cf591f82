import ChorusTestSupport
import Foundation
import Testing

/// Who may reach whom (CONTRACT §11) on two `chorusd` nodes sharing one PostgreSQL: an
/// invitation and its answer cross nodes live, one held for someone away reaches them at
/// a login on any node after the nodes restart, and a block holds on every node.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterConsentTests {
    static let invitations = "SELECT count(*) FROM invitations"

    /// dave on n0 invites alice, who is on n1: she hears it live; her ROOM ACCEPT on n1
    /// reaches dave on n0. Two answers racing from both nodes: one of them wins.
    @Test func anInvitationAndItsAcceptanceCrossNodes() throws {
        let cluster = try TestCluster(nodes: 2)
        let dave = try cluster.device("dave", on: 0, register: true)
        let alice = try cluster.device("alice", on: 1, register: true)
        let alicesPhone = try cluster.device("alice", on: 0)
        let den = id(try dave.ok("ROOM CREATE Den")["room"])

        #expect(try dave.ok("ROOM ADD \(den) alice")["invited"] as? Bool == true)
        for session in [alice, alicesPhone] {
            let invited = try session.event(timeout: 20)
            #expect(invited["event"] as? String == "room.invited" && invited["room"] as? Int == den && invited["by"] as? String == "dave")
        }
        #expect((try alicesPhone.ok("ROOMS")["rooms"] as? [JSON] ?? []).first?["role"] as? String == "invited")

        // Both of alice's sessions answer at once, one on each node.
        try alice.client.connection.send("ROOM ACCEPT \(den)")
        try alicesPhone.client.connection.send("ROOM DECLINE \(den)")
        let answers = [try Device.decode(alice.client.reply().last ?? ""), try Device.decode(alicesPhone.client.reply().last ?? "")]
        #expect(answers.filter { $0["type"] as? String == "ok" }.count == 1, "\(answers)")
        #expect(answers.filter { $0["code"] as? Int == 404 }.count == 1, "\(answers)")
        #expect(try cluster.count(Self.invitations) == 0)
        if answers[0]["type"] as? String == "ok" {
            // The acceptance won: dave on the other node hears of his new housemate.
            let added = try dave.event(timeout: 20)
            #expect(added["event"] as? String == "member.added" && added["user"] as? String == "alice")
        } else {
            try dave.ok("ROOM ADD \(den) alice")
            _ = try alice.event(timeout: 20)
            try alice.ok("ROOM ACCEPT \(den)")
            #expect(try dave.event(timeout: 20)["event"] as? String == "member.added")
        }
        #expect(object(try alicesPhone.ok("ROOM SHOW \(den)")["room"])["role"] as? String == "member")
    }

    /// alice has no session when dave invites her; both nodes restart; she logs in on the
    /// other node and gets the invitation once, and no later login gets it again.
    @Test func aHeldInvitationSurvivesRestartsAndReachesALoginOnAnyNode() throws {
        let cluster = try TestCluster(nodes: 2)
        let dave = try cluster.device("dave", on: 0, register: true)
        try cluster.device("alice", on: 1, register: true).client.connection.close()
        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        try dave.ok("ROOM ADD \(den) alice")
        for node in cluster.nodes { try node.restart() }

        let alice = try cluster.device("alice", on: 1)
        let held = try alice.event(timeout: 20)
        #expect(held["event"] as? String == "room.invited" && held["room"] as? Int == den)
        let again = try cluster.device("alice", on: 0)
        try again.expectQuiet("an invitation delivered once already")
        #expect(try cluster.count("SELECT count(*) FROM pending_notices") == 0)
        try again.ok("ROOM ACCEPT Den")
    }

    /// alice blocked dave on n1; his invitation from n0 reaches none of her sessions on any
    /// node and is not even stored, though his reply says invited; a stranger's DM is a 404
    /// on every node; a blocked housemate's DM reaches nobody.
    @Test func aBlockHoldsOnEveryNode() throws {
        let cluster = try TestCluster(nodes: 2)
        let dave = try cluster.device("dave", on: 0, register: true)
        let bob = try cluster.device("bob", on: 0, register: true)
        let alice = try cluster.device("alice", on: 1, register: true)
        let alicesPhone = try cluster.device("alice", on: 0)
        let flat = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("bob", to: flat)
        // alice's phone, on the other node, hears of the room and of bob joining.
        for joined in ["alice", "bob"] {
            let heard = try alicesPhone.event(timeout: 20)
            #expect(heard["event"] as? String == "member.added" && heard["user"] as? String == joined)
        }
        _ = try bob.drain()
        try alice.ok("BLOCK dave")
        try alice.ok("BLOCK bob")

        let den = id(try dave.ok("ROOM CREATE Den")["room"])
        #expect(try dave.ok("ROOM ADD \(den) alice")["invited"] as? Bool == true)
        #expect(try dave.failure("DM alice hi") == (404, "no such user alice"))
        let sent = try bob.ok("DM alice hi")
        #expect(object(sent["message"])["to"] as? String == "alice")
        Thread.sleep(forTimeInterval: 1)  // what a node's tail would have delivered by now
        for session in [alice, alicesPhone] { try session.expectQuiet("from people alice blocked") }
        #expect(try cluster.count(Self.invitations) == 0)
        #expect(try cluster.count("SELECT count(*) FROM events WHERE name = 'room.invited' AND by = 'dave'") == 0)
        let dms = (try alicesPhone.ok("SYNC 0 500")["events"] as? [JSON] ?? []).filter { $0["event"] as? String == "dm" }
        #expect(dms.isEmpty)
    }
}

import ChorusClient
import ChorusTestSupport
import Foundation
import Testing

/// The web door on several nodes: a WebSocket session on one node and a line session on
/// another are members of one room and hear each other live (CONTRACT §9).
@Suite(.serialized) struct ClusterWebDoorTests {
    @Test func aWebSocketMemberOnOneNodeAndALineMemberOnAnotherHearEachOther() throws {
        let cluster = try NodeCluster(database: try ThrowawayPostgres.sharedCluster().makeDatabase(), names: ["a", "b"])
        let line = try cluster.device("lena", on: "a")
        let room = id(try line.ok("ROOM CREATE Flat")["room"])
        let code = try line.ok("ROOM INVITE \(room)")["code"] as? String ?? ""

        let web = try WebClient(port: cluster.node("b").port)
        #expect(try web.upgrade().status == 101)
        #expect(try web.json("REGISTER wes \"\(defaultPassword)\"")["type"] as? String == "ok")
        #expect(try web.json("ROOM JOIN \(code)")["type"] as? String == "ok")

        #expect(try line.ok("SAY \(room) from node a")["type"] as? String == "ok")
        var heard = try web.event()
        while heard["event"] as? String != "message" { heard = try web.event() }
        #expect((heard["message"] as? [String: Any])?["text"] as? String == "from node a", "\(heard)")

        #expect(try web.json("SAY \(room) from node b")["type"] as? String == "ok")
        var event = try line.event()
        while event["event"] as? String != "message" { event = try line.event() }
        #expect((event["message"] as? [String: Any])?["text"] as? String == "from node b", "\(event)")
    }
}

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

    /// A calendar address made on one node is served by another, and once ended on the
    /// first it is 404 on the second at once: every request reads the store (CONTRACT §9).
    @Test func aCalendarFeedEndedOnOneNodeIsGoneOnTheOtherAtOnce() throws {
        let cluster = try NodeCluster(database: try ThrowawayPostgres.sharedCluster().makeDatabase(), names: ["a", "b"])
        let ann = try cluster.device("ann", on: "a")
        try ann.ok("TASK ADD me Dentist due=2026-12-07")
        let url = try #require(try ann.ok("CALENDAR LINK me")["url"] as? String)
        let path = String(url[try #require(url.range(of: "/calendar/")).lowerBound...])
        let web = try WebClient(port: cluster.node("b").port)
        let feed = try web.request("GET", path)
        #expect(feed.status == 200 && feed.text.contains("SUMMARY:Dentist\r\n"))
        #expect(try web.request("GET", path, headers: [("If-None-Match", feed.headers["etag"] ?? "")]).status == 304)
        try ann.ok("CALENDAR UNLINK me")
        #expect(try web.request("GET", path).status == 404)
    }
}

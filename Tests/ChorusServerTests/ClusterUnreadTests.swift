import ChorusTestSupport
import Foundation
import Testing

/// Unread markers on two `chorusd` nodes sharing one PostgreSQL: a READ on one node moves
/// the count everywhere and reaches the person's session on the other node live.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterUnreadTests {
    @Test func aReadOnOneNodeReachesTheOther() throws {
        let cluster = try TestCluster(nodes: 2)
        let alice = try cluster.device("alice", on: 0, register: true)
        let bob = try cluster.device("bob", on: 0, register: true)
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        let bobElsewhere = try cluster.device("bob", on: 1)
        _ = try bob.drain()

        try alice.ok("SAY \(room) bins tonight")
        try alice.ok("SAY \(room) and the glass")
        let first = try #require(try bob.event(timeout: 20)["id"] as? Int)
        _ = try bob.event(timeout: 20)
        for _ in 0..<2 { _ = try bobElsewhere.event(timeout: 20) }
        #expect(object((try bobElsewhere.ok("ROOMS")["rooms"] as? [JSON])?.first)["unread"] as? Int == 2)

        #expect(try bob.ok("READ \(room) \(first)")["unread"] as? Int == 1)
        let told = try bobElsewhere.event(timeout: 20)
        #expect(told["event"] as? String == "room.read" && told["last_read"] as? Int == first && told["unread"] as? Int == 1, "\(told)")
        #expect(object((try bobElsewhere.ok("ROOMS")["rooms"] as? [JSON])?.first)["unread"] as? Int == 1)
        try alice.expectQuiet("for bob's READ")

        // The login line on the other node counts from the shared marker.
        let later = try TestClient(port: cluster.nodes[1].port, certificatePath: cluster.nodes[1].certificatePath)
        let line = try later.last("LOGIN bob \"\(TestCluster.password)\"")
        #expect(line.hasSuffix(" · 1 new in Flat 2B"), "\(line)")
    }
}

import ChorusTestSupport
import ChorusLocking
import Dispatch
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

    /// Two housemates say 80 messages on both nodes while the reader moves their marker
    /// from both nodes at once: the kept count never drifts. At the end it is exactly the
    /// messages past the marker as it stands, on either node.
    @Test func countsStayExactWhileBothNodesSayAndRead() throws {
        let cluster = try TestCluster(nodes: 2)
        let alice = try cluster.device("alice", on: 0, register: true)
        let carol = try cluster.device("carol", on: 1, register: true)
        let bob = try cluster.device("bob", on: 0, register: true)
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        try alice.add("carol", to: room)
        let bobElsewhere = try cluster.device("bob", on: 1)
        _ = try bob.drain()
        _ = try bobElsewhere.drain()

        // Each device is used by one thread alone.
        nonisolated(unsafe) let devices = [alice, carol, bob, bobElsewhere]
        let saidIDs = Locked<[Int]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            do {
                switch part {
                case 0, 1:
                    let speaker = devices[part]
                    for batch in 0..<8 {
                        let replies = try speaker.pipeline((0..<5).map { "SAY \(room) \(speaker.user) \(batch)-\($0)" })
                        if let bad = replies.first(where: { $0["type"] as? String != "ok" }) { failures.withLock { $0.append("\(bad)") } }
                    }
                default:
                    // The reader marks read what it has seen so far, on its own node.
                    let reader = devices[part]
                    for _ in 0..<12 {
                        var seen = reader.lastEventID
                        for event in try reader.drain() where event["event"] as? String == "message" {
                            seen = max(seen, event["id"] as? Int ?? 0)
                            if part == 2 { saidIDs.withLock { $0.append(event["id"] as? Int ?? 0) } }
                        }
                        let reply = try reader.send("READ \(room) \(seen)")
                        if reply["type"] as? String != "ok" { failures.withLock { $0.append("\(reply)") } }
                    }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        while saidIDs.withLock({ $0.count }) < 80 {
            let event = try bob.event(timeout: 20)
            if event["event"] as? String == "message" { saidIDs.withLock { $0.append(event["id"] as? Int ?? 0) } }
        }
        // Three more, unread by anyone: the count must be theirs plus whatever the race
        // left past the marker.
        _ = try carol.pipeline((1...3).map { "SAY \(room) later \($0)" })
        while saidIDs.withLock({ $0.count }) < 83 {
            let event = try bob.event(timeout: 20)
            if event["event"] as? String == "message" { saidIDs.withLock { $0.append(event["id"] as? Int ?? 0) } }
        }
        let ids = saidIDs.withLock { $0 }
        // READ 0 moves nothing: the reply tells the marker as it stands and its count.
        let standing = try bob.ok("READ \(room) 0")
        let marker = try #require(standing["last_read"] as? Int)
        let expected = ids.filter { $0 > marker }.count
        #expect(expected >= 3)
        #expect(standing["unread"] as? Int == expected, "marker \(marker): \(standing)")
        #expect(object((try bobElsewhere.ok("ROOMS")["rooms"] as? [JSON])?.first)["unread"] as? Int == expected)
        #expect(try bobElsewhere.ok("READ \(room) \(ids.max() ?? 0)")["unread"] as? Int == 0)
        #expect(object((try bob.ok("ROOMS")["rooms"] as? [JSON])?.first)["unread"] as? Int == 0)
    }
}

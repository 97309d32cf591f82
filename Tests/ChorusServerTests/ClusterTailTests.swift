@testable import ChorusServer
import ChorusLocking
import ChorusPostgres
import ChorusStore
import ChorusTestSupport
import Foundation
import Testing

/// Two nodes on one PostgreSQL database, in this process, each with its own queue and
/// feed: every event reaches every node through the id-ordered tail, so members on both
/// see one order, the order of the ids and of SYNC; closes reach the other node too.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterTailTests {
    static func node(_ name: String, on conninfo: String) throws -> TestServer {
        try TestServer(configure: { $0.loops = 2 }, store: { _ in try PostgresQueue(conninfo: conninfo, node: name) },
                       feed: { try PostgresEventFeed(conninfo: conninfo, node: name) })
    }

    static func grantAdmin(_ name: String, on conninfo: String) throws {
        let tool = try PostgresQueue(conninfo: conninfo, node: "tool")
        defer { tool.close() }
        #expect(try tool.sync { try $0.setAdmin(name: name, true) })
    }

    /// Reads `device`'s raw event lines until it has `count` chat lines; returns them by
    /// event id, in the order they came (every event's id above the last, `Device.event`).
    static func messages(_ device: Device, count: Int) throws -> [(id: Int, by: String, line: String)] {
        var found: [(id: Int, by: String, line: String)] = []
        var last = 0
        while found.count < count {
            let line = try device.client.nextEvent(timeout: 20)
            let event = try Device.decode(line)
            let id = event["id"] as? Int ?? -1
            #expect(id > last, "\(device.label): event \(id) after \(last)")
            last = max(last, id)
            if event["event"] as? String == "message" { found.append((id, event["by"] as? String ?? "", line)) }
        }
        return found
    }

    /// ann and cat on node a, ben and dan on node b; ann, ben and dan flood one room at
    /// once. Everyone gets everyone else's lines in id order, exactly SYNC 0's order, and
    /// a line reads the same, byte for byte, on the node that wrote it and on the other.
    @Test func oneRoomOnTwoNodesSeesOneOrder() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try Self.node("a", on: conninfo)
        let b = try Self.node("b", on: conninfo)
        let ann = try a.device("ann")
        let ben = try b.device("ben")
        let cat = try a.device("cat")
        let dan = try b.device("dan")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        for name in ["ben", "cat", "dan"] { try ann.add(name, to: room) }

        let senders = [ann, ben, dan]
        let each = 20
        for start in stride(from: 0, to: each, by: 5) {
            for sender in senders {
                let lines = (start..<start + 5).map { "SAY \(room) \(sender.user) \($0)\r\n" }.joined()
                try sender.client.connection.sendRaw(Array(lines.utf8))
            }
        }
        for sender in senders {
            for _ in 0..<each {
                let reply = try Device.decode(try sender.client.reply(timeout: 20).last ?? "")
                #expect(reply["type"] as? String == "ok", "\(sender.label): \(reply)")
            }
        }
        let total = each * senders.count
        var seen: [String: [(id: Int, by: String, line: String)]] = [:]
        for member in [ann, ben, cat, dan] {
            let own = senders.contains { $0 === member } ? each : 0
            seen[member.user] = try Self.messages(member, count: total - own)
        }

        let synced = try cat.ok("SYNC 0 500")
        let log = (synced["events"] as? [JSON] ?? []).filter { $0["event"] as? String == "message" }
        let logIDs = log.compactMap { $0["id"] as? Int }
        #expect(logIDs.count == total)
        #expect(logIDs == logIDs.sorted(), "SYNC gives id order")
        for member in [ann, ben, cat, dan] {
            let expected = log.filter { $0["by"] as? String != member.user }.compactMap { $0["id"] as? Int }
            #expect(seen[member.user]?.map(\.id) == expected, "\(member.label) saw another order than the log's")
        }
        // cat (node a) and dan (node b) both got ann's and ben's lines: the same bytes.
        let onA = Dictionary(uniqueKeysWithValues: (seen["cat"] ?? []).map { ($0.id, $0.line) })
        let fromBoth = (seen["dan"] ?? []).filter { $0.by == "ann" || $0.by == "ben" }
        #expect(fromBoth.count == 2 * each)
        for message in fromBoth {
            #expect(onA[message.id] == message.line, "event \(message.id) differs between the nodes")
        }
    }

    /// ben's line is acknowledged on node b before ann speaks on node a: ann's reply comes
    /// only after ben's line reached her (her node's tail passed it first), every time.
    @Test func eventsCommittedBeforeACommandReachItsIssuerFirst() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try Self.node("a", on: conninfo)
        let b = try Self.node("b", on: conninfo)
        let ann = try a.device("ann")
        let ben = try b.device("ben")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        try ann.add("ben", to: room)
        #expect(try ben.eventAfterInvitation(timeout: 20)["event"] as? String == "member.added")
        for round in 0..<20 {
            try ben.ok("SAY \(room) ben \(round)")
            try ann.ok("SAY \(room) ann \(round)")
            let before = try ann.client.events.map(Device.decode).filter { $0["event"] as? String == "message" }
            #expect(before.count == 1 && object(before.last?["message"])["text"] as? String == "ben \(round)",
                    "round \(round): ann's reply came before ben's line: \(before)")
            _ = try ann.drain()
            let line = try ben.event(timeout: 20)
            #expect(object(line["message"])["text"] as? String == "ann \(round)")
        }
    }

    /// ADMIN KICK on node a closes the user's session on node b, with `bye`; TOKEN REVOKE
    /// on b closes the token's session on a.
    @Test func closesReachTheOtherNode() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try Self.node("a", on: conninfo)
        let b = try Self.node("b", on: conninfo)
        let root = try a.device("root")
        let bob = try b.user("bob")
        try Self.grantAdmin("root", on: conninfo)
        try root.ok("ADMIN KICK bob")
        #expect(try bob.nextEvent(timeout: 20).hasPrefix("* bye — disconnected by a server admin"))
        #expect(try bob.connection.readLine(timeout: 20) == nil)

        let bot = try b.device("housebot")
        let secret = try #require(try bot.ok("TOKEN CREATE cron")["token"] as? String)
        let session = try a.client()
        #expect(try session.last("AUTH \(secret)").hasPrefix("OK"))
        try bot.ok("TOKEN REVOKE cron")
        #expect(try session.nextEvent(timeout: 20).hasPrefix("* bye"))
        #expect(try session.connection.readLine(timeout: 20) == nil)
        #expect(try root.ok("PING")["pong"] is NSNull, "the admin's own session stays")
    }

    /// With no doorbell at all, rows another node committed still arrive: the tail polls.
    @Test func thePollFindsRowsWithoutADoorbell() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let writer = try PostgresQueue(conninfo: conninfo, node: "a")
        defer { writer.close() }
        let seen = Locked<[Int64]>([])
        let tail = try EventTail<String, Int64>(
            feed: try PostgresEventFeed(conninfo: conninfo, node: "b"),
            render: { rows in rows.map { ($0.id...$0.id, $0.id) } },
            deliver: { step in if case .foreign(let id) = step { seen.withLock { $0.append(id) } } },
            delivered: {})
        tail.start()
        defer { tail.stop() }
        // The queue writes and commits; nobody rings.
        let ids = try writer.sync { db in
            try (0..<3).map { try db.appendEvent(room: 1, user: nil, name: "message", by: "ann", at: "t", payload: "{}",
                                                  text: "\($0)", audience: [1]) }
        }
        let deadline = Date().addingTimeInterval(10)
        while seen.withLock({ $0.count }) < ids.count && Date() < deadline { usleep(10_000) }
        #expect(seen.withLock { $0 } == ids)
    }
}

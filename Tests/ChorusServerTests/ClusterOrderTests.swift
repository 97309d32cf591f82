import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// CLUSTER.md's list, the items about order and reach, through real `chorusd --postgres`
/// nodes over TLS: one order per room for every member on every node (1), a client moving
/// to another node mid-flood (3), a lost doorbell (7), a removal racing the removed
/// member's lines (12), and session closes reaching every node (13).
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterOrderTests {
    static func cluster(_ names: [String] = ["a", "b", "c"]) throws -> NodeCluster {
        try NodeCluster(database: try ThrowawayPostgres.sharedCluster().makeDatabase(), names: names)
    }

    /// ann, ben and cat flood one room from three nodes at once; dan and eve only listen.
    /// Every member sees everyone else's lines in id order, exactly SYNC 0's order, each once.
    @Test func aFloodFromThreeNodesReachesEveryMemberInOneOrder() throws {
        let cluster = try Self.cluster()
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let cat = try cluster.device("cat", on: "c")
        let dan = try cluster.device("dan", on: "b")
        let eve = try cluster.device("eve", on: "c")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        for name in ["ben", "cat", "dan", "eve"] { try ann.add(name, to: room) }
        let each = 40
        let floods = [ann, ben, cat].map { SayFlood($0, room: room, label: $0.user, limit: each, pause: 0) }
        for flood in floods { flood.start() }
        let results = floods.map { $0.wait(stop: false) }
        for (flood, result) in zip([ann, ben, cat], results) {
            #expect(result.count == each && result.allSatisfy { $0.code == 200 }, "\(flood.label): \(result)")
        }

        let log = try syncAll(dan).filter { messageText($0) != nil }
        let logIDs = log.compactMap { $0["id"] as? Int }
        #expect(logIDs.count == 3 * each)
        #expect(logIDs == logIDs.sorted())
        #expect(Set(log.compactMap(messageText)) == Set(results.flatMap { $0.map(\.text) }), "nothing lost or doubled")
        for member in [ann, ben, cat, dan, eve] {
            let expected = log.filter { $0["by"] as? String != member.user }.compactMap { $0["id"] as? Int }
            let seen = try ClusterTailTests.messages(member, count: expected.count)
            #expect(seen.map(\.id) == expected, "\(member.label) saw another order than the log's")
            let extra = try member.drain().filter { messageText($0) != nil }
            #expect(extra.isEmpty, "\(member.label) got lines twice: \(extra)")
        }
    }

    /// ben reads part of a flood on node b, drops his connection, logs in on node c while
    /// the flood goes on and sends SYNC with the last id he saw: it returns exactly the
    /// log after that id up to where it ends, and with his new live stream nothing is missing.
    @Test func aClientMovingToAnotherNodeMidFloodSyncsExactlyWhatItMissed() throws {
        let cluster = try Self.cluster()
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        try ann.add("ben", to: room)
        #expect(try ben.eventAfterInvitation(timeout: 20)["event"] as? String == "member.added")
        let flood = SayFlood(ann, room: room, label: "ann", chunk: 3, pause: 10_000)
        flood.start()
        let before = try ClusterTailTests.messages(ben, count: 10)
        let last = try #require(before.last?.id)
        ben.client.connection.close()

        let again = try cluster.device("ben", on: "c", register: false)
        let synced = try syncAll(again, after: last).filter { messageText($0) != nil }.compactMap { $0["id"] as? Int }
        // The flood goes on after the SYNC: some of what follows comes live.
        let stillGoing = flood.count
        let deadline = Date().addingTimeInterval(20)
        while flood.count < stillGoing + 9 && Date() < deadline { usleep(2_000) }
        let results = flood.wait()
        #expect(results.allSatisfy { $0.code == 200 })
        #expect(results.count >= stillGoing + 9, "the flood stopped when ben came back")

        let log = try syncAll(ann).filter { messageText($0) != nil }.compactMap { $0["id"] as? Int }
        #expect(log.count == results.count)
        #expect(before.map(\.id) == log.filter { $0 <= last }, "ben's first session saw the log up to \(last)")
        let missed = log.filter { $0 > last }
        #expect(synced == Array(missed.prefix(synced.count)), "SYNC \(last) is the log after it, none skipped or twice")
        var live: [Int] = []
        while let newest = missed.last, max(live.last ?? last, synced.last ?? last) < newest {
            let event = try again.event(timeout: 20)
            if messageText(event) != nil, let id = event["id"] as? Int { live.append(id) }
        }
        #expect(Set(synced).union(live) == Set(missed), "SYNC and the live stream together miss nothing")
        let nextAfterSync = missed.first { $0 > (synced.last ?? last) } ?? .max
        #expect(live.first.map { $0 <= nextAfterSync } ?? true, "the live stream starts no later than where SYNC ends")
    }

    /// Node b hears no doorbell (its proxy drops every NotificationResponse): lines said
    /// on node a still reach ben on b, by the poll.
    @Test func aLostDoorbellIsMadeUpByThePoll() throws {
        let postgres = try ThrowawayPostgres.sharedCluster()
        let database = try postgres.makeDatabase()
        let proxy = try TCPProxy(port: postgres.port)
        defer { proxy.stop() }
        proxy.dropNotifications(true)
        let cluster = try NodeCluster(database: database, names: ["a", "b"], postgres: { name in
            name == "b" ? database.replacingOccurrences(of: "port=\(postgres.port)", with: "port=\(proxy.port)") : ""
        })
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        try ann.add("ben", to: room)
        #expect(try ben.eventAfterInvitation(timeout: 20)["event"] as? String == "member.added")
        for line in 0..<5 {
            try ann.ok("SAY \(room) line \(line)")
            #expect(messageText(try ben.event(timeout: 20)) == "line \(line)")
        }
        #expect(proxy.connectionCount >= 2, "node b's writer and feed went through the proxy")
    }

    /// alice (node a) removes bob from the room while bob (node b) floods it: bob's OKs are
    /// a prefix of what he sent, all before the removal's id, every later line refused
    /// (never a 5xx); bob gets no event of the room after his removal, though carol goes on.
    @Test func aRemovalRacingTheRemovedMembersLinesIsOrderedOnce() throws {
        let cluster = try Self.cluster()
        let alice = try cluster.device("alice", on: "a")
        let bob = try cluster.device("bob", on: "b")
        let carol = try cluster.device("carol", on: "c")
        let dan = try cluster.device("dan", on: "b")
        let room = id(try alice.ok("ROOM CREATE Shared")["room"])
        for name in ["bob", "carol", "dan"] { try alice.add(name, to: room) }
        let flood = SayFlood(bob, room: room, label: "bob", chunk: 3, pause: 2_000)
        flood.start()
        let deadline = Date().addingTimeInterval(20)
        while flood.count < 9 && Date() < deadline { usleep(2_000) }
        try alice.ok("ROOM REMOVE \(room) bob")
        for line in 0..<5 { try carol.ok("SAY \(room) carol \(line)") }
        while flood.count < 30 && Date() < deadline { usleep(2_000) }
        let results = flood.wait()

        let refused = try #require(results.firstIndex { $0.code != 200 }, "bob was never refused: \(results.count) lines")
        #expect(refused >= 9)
        #expect(results[refused...].allSatisfy { (400..<500).contains($0.code ?? 0) },
                "after the removal every line is refused, as a client error: \(results[refused...].map(\.code))")
        let log = try syncAll(alice)
        let removal = try #require(log.first { $0["event"] as? String == "member.removed" }?["id"] as? Int)
        let bobs = log.filter { $0["by"] as? String == "bob" && messageText($0) != nil }
        #expect(bobs.compactMap(messageText) == results[..<refused].map(\.text), "bob's OKs are exactly his stored lines")
        #expect(bobs.allSatisfy { ($0["id"] as? Int ?? .max) < removal })

        // dan, on bob's node, got carol's last line: bob's node has passed it.
        let carolsLast = try #require(log.last { $0["by"] as? String == "carol" }?["id"] as? Int)
        while (try dan.event(timeout: 20)["id"] as? Int ?? 0) < carolsLast {}
        let seen = try bob.drain()
        #expect(seen.contains { $0["event"] as? String == "member.removed" })
        let after = seen.filter { ($0["id"] as? Int ?? 0) > removal }
        #expect(after.isEmpty, "bob saw events of the room after his removal: \(after)")
    }

    /// ADMIN KICK and ADMIN DISABLE on node a close the user's sessions on nodes b and c,
    /// each with `bye`; TOKEN REVOKE on c closes the token's sessions on a and b.
    @Test func closesReachEveryNode() throws {
        let cluster = try Self.cluster()
        let root = try cluster.client("a")
        #expect(try root.last("REGISTER root \"\(defaultPassword)\"").hasPrefix("OK"))
        try ClusterTailTests.grantAdmin("root", on: cluster.database)
        func sessions(_ name: String) throws -> [TestClient] {
            let first = try cluster.client("b")
            #expect(try first.last("REGISTER \(name) \"\(defaultPassword)\"").hasPrefix("OK"))
            let second = try cluster.client("c")
            #expect(try second.last("LOGIN \(name) \"\(defaultPassword)\"").hasPrefix("OK"))
            return [first, second]
        }
        func expectClosed(_ clients: [TestClient], _ what: String) throws {
            for client in clients {
                #expect(try client.nextEvent(timeout: 20).hasPrefix("* bye"), "\(what)")
                #expect(try client.connection.readLine(timeout: 20) == nil, "\(what): the session stayed open")
            }
        }
        let bob = try sessions("bob")
        #expect(try root.last("ADMIN KICK bob").hasPrefix("OK"))
        try expectClosed(bob, "kick")
        let cy = try sessions("cy")
        #expect(try root.last("ADMIN DISABLE cy").hasPrefix("OK"))
        try expectClosed(cy, "disable")
        let late = try cluster.client("a")
        #expect(try late.last("LOGIN cy \"\(defaultPassword)\"").hasPrefix("ERR"), "a disabled account logged in")

        let bot = try cluster.client("c")
        #expect(try bot.last("REGISTER housebot \"\(defaultPassword)\"").hasPrefix("OK"))
        bot.mode = "json"
        try bot.call("MODE json")
        let secret = try #require(try bot.json("TOKEN CREATE cron")["token"] as? String)
        let tokens = try ["a", "b"].map { node in
            let client = try cluster.client(node)
            #expect(try client.last("AUTH \(secret)").hasPrefix("OK"))
            return client
        }
        #expect(try bot.json("TOKEN REVOKE cron")["type"] as? String == "ok")
        try expectClosed(tokens, "token revoke")
        #expect(try bot.json("PING")["type"] as? String == "ok", "the bot's password session stays")
        #expect(try root.last("PING") == "OK PONG", "the admin's session stays")
    }
}

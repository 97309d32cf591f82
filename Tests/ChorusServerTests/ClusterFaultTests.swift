import ChorusPostgres
import ChorusTestSupport
import Foundation
import Glibc
import Testing

/// CLUSTER.md's list, the faults, through real `chorusd --postgres` nodes over TLS: a node
/// SIGKILLed (4) or SIGSTOPped (5) while it holds the event counter, a node's writer or
/// LISTEN connection stalled (5), PostgreSQL crashing and coming back under a flood (6), and a
/// statement timeout (15). After each: every acknowledged line is stored once, the ids
/// are gapless, and every listening member got the log in id order.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterFaultTests {
    /// A room of `owner`'s with `members` in it, each having seen its `member.added`.
    static func room(of owner: Device, with members: [Device]) throws -> Int {
        let room = id(try owner.ok("ROOM CREATE Shared")["room"])
        for member in members {
            try owner.add(member.user, to: room)
            // An invitation first, unless they are housemates already.
            var seen = try member.event(timeout: 20)["event"] as? String
            if seen == "room.invited" { seen = try member.event(timeout: 20)["event"] as? String }
            #expect(seen == "member.added")
        }
        return room
    }

    /// The stored lines of the room, as `reader` syncs them; ids gapless across the log.
    /// Ann's node answers a SAY with OK again within about 2 s.
    static func expectBack(_ ann: Device, room: Int) throws {
        var back: Int?
        for attempt in 0..<20 where back != 200 {
            back = try ann.code("SAY \(room) back \(attempt)")
            if back != 200 { usleep(100_000) }
        }
        #expect(back == 200, "node a did not come back")
    }

    static func checkLog(_ cluster: NodeCluster, reader: Device, acknowledged: [String],
                         sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSON] {
        let ids = try cluster.eventIDs()
        #expect(ids == (0..<Int64(ids.count)).map { $0 + 1 }, "ids have a gap: \(ids)",
                sourceLocation: sourceLocation)
        let log = try syncAll(reader).filter { messageText($0) != nil }
        let texts = log.compactMap(messageText)
        #expect(Set(texts).count == texts.count, "a line is stored twice", sourceLocation: sourceLocation)
        let missing = Set(acknowledged).subtracting(texts)
        #expect(missing.isEmpty, "acknowledged but not stored: \(missing.sorted())", sourceLocation: sourceLocation)
        return log
    }

    /// `listener` (who never speaks) gets every line of `log`, in its order.
    static func expectCaughtUp(_ listener: Device, with log: [JSON], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let seen = try ClusterTailTests.messages(listener, count: log.count)
        #expect(seen.map(\.id) == log.compactMap { $0["id"] as? Int }, "\(listener.label) missed or reordered lines",
                sourceLocation: sourceLocation)
    }

    /// SIGKILL node a while its writer holds the counter mid-flood: node b's next line
    /// goes through at once, every line ann saw acknowledged is stored, the ids have no
    /// gap, and ben on b got the log in order.
    @Test func aNodeKilledHoldingTheCounterLosesNothingAcknowledged() throws {
        let cluster = try NodeCluster(database: try ThrowawayPostgres.sharedCluster().makeDatabase(), names: ["a", "b"])
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let room = try Self.room(of: ann, with: [ben])
        let flood = SayFlood(ann, room: room, label: "ann", chunk: 8, pause: 0)
        flood.start()
        let deadline = Date().addingTimeInterval(20)
        while flood.count < 16 && Date() < deadline { usleep(2_000) }
        #expect(try cluster.pauseHoldingTheCounter("a"), "node a was never caught holding the counter")
        cluster.node("a").kill()
        #expect(cluster.node("a").waitForExit() == 128 + SIGKILL)
        _ = flood.wait(stop: false)

        try ben.ok("SAY \(room) after the kill")
        let log = try Self.checkLog(cluster, reader: ben, acknowledged: flood.acknowledged + ["after the kill"])
        try Self.expectCaughtUp(ben, with: log.filter { $0["by"] as? String == "ann" })
    }

    /// SIGSTOP node a while it holds the counter: ben's line on node b waits only until
    /// PostgreSQL ends a's idle transaction, and dan on node c gets it. On SIGCONT node a
    /// finds its session gone, reconnects, and cat on a catches up with everything.
    @Test func aNodeStoppedInATransactionHoldsUpTheOthersOnlyUntilTheTimeout() throws {
        let cluster = try NodeCluster(database: try ThrowawayPostgres.sharedCluster().makeDatabase(), names: ["a", "b", "c"])
        let ann = try cluster.device("ann", on: "a")
        let cat = try cluster.device("cat", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let dan = try cluster.device("dan", on: "c")
        let room = try Self.room(of: ann, with: [cat, ben, dan])
        let flood = SayFlood(ann, room: room, label: "ann", chunk: 8, pause: 0)
        flood.start()
        let deadline = Date().addingTimeInterval(20)
        while flood.count < 16 && Date() < deadline { usleep(2_000) }
        #expect(try cluster.pauseHoldingTheCounter("a"), "node a was never caught holding the counter")

        let reply = try Device.decode(try ben.client.call("SAY \(room) while a sleeps", timeout: 30).last ?? "")
        #expect(reply["type"] as? String == "ok", "\(reply)")
        #expect(!(try cluster.holdsCounter("a")), "node a's transaction outlived the timeout")
        while messageText(try dan.event(timeout: 20)) != "while a sleeps" {}

        cluster.node("a").resume()
        flood.stop()
        let results = flood.wait()
        #expect(results.allSatisfy { $0.code == 200 || $0.code == 503 }, "\(results.map(\.code))")
        try Self.expectBack(ann, room: room)
        let log = try Self.checkLog(cluster, reader: dan, acknowledged: flood.acknowledged + ["while a sleeps"])
        try Self.expectCaughtUp(cat, with: log)
    }

    /// Node a's writer connection hangs mid-transaction with the counter held (its proxy
    /// stops passing bytes, sockets open): ben's line on node b waits only until PostgreSQL
    /// ends a's idle transaction. Once bytes flow again node a finds its session gone,
    /// answers that batch 503, reconnects, and cat on a catches up with everything.
    @Test func aHungWriterConnectionHoldsUpTheOthersOnlyUntilTheTimeout() throws {
        let postgres = try ThrowawayPostgres.sharedCluster()
        let database = try postgres.makeDatabase()
        let proxy = try TCPProxy(port: postgres.port)
        defer { proxy.stop() }
        let cluster = try NodeCluster(database: database, names: ["a", "b"], postgres: { name in
            name == "a" ? database.replacingOccurrences(of: "port=\(postgres.port)", with: "port=\(proxy.port)") : ""
        })
        let ann = try cluster.device("ann", on: "a")
        let cat = try cluster.device("cat", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let room = try Self.room(of: ann, with: [cat, ben])
        let flood = SayFlood(ann, room: room, label: "ann", chunk: 8, pause: 0)
        flood.start()
        let deadline = Date().addingTimeInterval(20)
        while flood.count < 16 && Date() < deadline { usleep(2_000) }
        var held = false
        for _ in 0..<400 where !held {
            #expect(proxy.stall(applicationName: { $0 == "chorusd a" }) == 1, "node a's writer goes through the proxy")
            held = try cluster.holdsCounter("a")
            if !held {
                proxy.resume()
                usleep(3_000)
            }
        }
        #expect(held, "node a's writer was never caught holding the counter")

        let reply = try Device.decode(try ben.client.call("SAY \(room) while a hangs", timeout: 30).last ?? "")
        #expect(reply["type"] as? String == "ok", "\(reply)")
        #expect(!(try cluster.holdsCounter("a")), "node a's transaction outlived the timeout")
        proxy.resume()
        let results = flood.wait()
        #expect(results.allSatisfy { $0.code == 200 || $0.code == 503 }, "\(results.map(\.code))")
        try Self.expectBack(ann, room: room)
        let log = try Self.checkLog(cluster, reader: ben, acknowledged: flood.acknowledged + ["while a hangs"])
        try Self.expectCaughtUp(cat, with: log)
    }

    /// Node a's LISTEN connection hangs (its proxy stops passing bytes, sockets open): b
    /// and c go on, their lines reach each other; once it flows again, ann on a gets them
    /// all, in order.
    @Test func aStalledListenConnectionHoldsUpOnlyItsOwnNode() throws {
        let postgres = try ThrowawayPostgres.sharedCluster()
        let database = try postgres.makeDatabase()
        let proxy = try TCPProxy(port: postgres.port)
        defer { proxy.stop() }
        let cluster = try NodeCluster(database: database, names: ["a", "b", "c"], postgres: { name in
            name == "a" ? database.replacingOccurrences(of: "port=\(postgres.port)", with: "port=\(proxy.port)") : ""
        })
        let ben = try cluster.device("ben", on: "b")
        let ann = try cluster.device("ann", on: "a")
        let dan = try cluster.device("dan", on: "c")
        let room = try Self.room(of: ben, with: [ann, dan])
        #expect(proxy.stall(applicationName: { $0.hasSuffix(" tail") }) == 1, "node a's feed goes through the proxy")
        for line in 0..<10 {
            try ben.ok("SAY \(room) line \(line)")
            #expect(messageText(try dan.event(timeout: 20)) == "line \(line)")
        }
        proxy.resume()
        let log = try Self.checkLog(cluster, reader: dan, acknowledged: (0..<10).map { "line \($0)" })
        try Self.expectCaughtUp(ann, with: log)
        try ann.ok("SAY \(room) ann is back")
        #expect(messageText(try ben.event(timeout: 20)) == "ann is back")
    }

    /// PostgreSQL crashes (`pg_ctl stop -m immediate`) under two nodes' floods and starts
    /// again: meanwhile commands get 503 and sessions stay; after, every acknowledged line
    /// is stored once, and the listeners on both nodes got the whole log in order, lines
    /// whose COMMIT's answer was lost included (settled, or read back by the tail when the
    /// server was back too late to settle). A server of the test's own, so no other test
    /// is disturbed.
    @Test func aPostgreSQLCrashUnderAFloodLosesNothingAcknowledged() throws {
        let server = try ThrowawayPostgres()
        let cluster = try NodeCluster(database: try server.makeDatabase(), names: ["a", "b"])
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let cat = try cluster.device("cat", on: "a")
        let dan = try cluster.device("dan", on: "b")
        let room = try Self.room(of: ann, with: [ben, cat, dan])
        let floods = [ann, ben].map { SayFlood($0, room: room, label: $0.user, chunk: 4, pause: 5_000) }
        for flood in floods { flood.start() }
        var deadline = Date().addingTimeInterval(20)
        while floods.contains(where: { $0.count < 8 }) && Date() < deadline { usleep(2_000) }

        server.stop(mode: "immediate")
        #expect(try cat.code("SAY \(room) while down") == 503)
        #expect(try dan.client.json("PING")["type"] as? String == "ok", "a session closed while PostgreSQL was down")
        try server.start()
        let before = floods.map(\.acknowledged.count)
        deadline = Date().addingTimeInterval(30)
        while zip(floods, before).contains(where: { $0.acknowledged.count < $1 + 8 }) && Date() < deadline { usleep(5_000) }
        let results = floods.map { $0.wait() }
        for result in results {
            #expect(result.allSatisfy { $0.code == 200 || $0.code == 503 }, "\(result.map(\.code))")
        }
        #expect(zip(floods, before).allSatisfy { $0.acknowledged.count >= $1 + 8 }, "the floods did not go on after the restart")

        let log = try Self.checkLog(cluster, reader: cat, acknowledged: floods.flatMap(\.acknowledged))
        #expect(!log.compactMap(messageText).contains("while down"))
        try Self.expectCaughtUp(cat, with: log)
        try Self.expectCaughtUp(dan, with: log.filter { $0["by"] as? String != "dan" })
        for node in cluster.nodes {
            #expect(node.isRunning)
        }
        for device in [ann, ben, cat, dan] { #expect(try device.client.json("PING")["type"] as? String == "ok") }
    }

    /// A statement that runs past `statement_timeout` (the node's SAY stuck behind the
    /// counter another session holds) is ERR 503 — try again — and nothing of it is kept.
    @Test func aStatementTimeoutIs503AndKeepsNothingOfTheCommand() throws {
        let database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let cluster = try NodeCluster(database: database, names: ["a"],
                                      postgres: { _ in database + " options='-c statement_timeout=1500'" })
        let ann = try cluster.device("ann", on: "a")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        let blocker = try cluster.inspector()
        try blocker.execute("BEGIN")
        try blocker.query("SELECT last FROM event_counter FOR UPDATE")
        let reply = try Device.decode(try ann.client.call("SAY \(room) stuck", timeout: 30).last ?? "")
        #expect(reply["code"] as? Int == 503, "\(reply)")
        try blocker.execute("ROLLBACK")
        let kept = try blocker.query("SELECT count(*) FROM messages WHERE text = 'stuck'").firstRow().int64(0)
        #expect(kept == 0)
        try ann.ok("SAY \(room) unstuck")
        let log = try Self.checkLog(cluster, reader: ann, acknowledged: ["unstuck"])
        #expect(log.compactMap(messageText) == ["unstuck"])
    }

    /// PostgreSQL stopped with `-m fast` and started again, rounds over: a write on node b
    /// during each outage (503), b writing again after it, and once a's tail has delivered
    /// that, node a's first write is OK. a's writer was idle through the outage, so it
    /// learns its connection is broken only at the batch's BEGIN. Before, that batch was
    /// 503 in about half of the rounds; now a batch that fails before any of it reached the
    /// database runs again once on a fresh connection.
    @Test func theFirstWriteAfterTheDatabaseReturnsSucceeds() throws {
        let server = try ThrowawayPostgres()
        let cluster = try NodeCluster(database: try server.makeDatabase(), names: ["a", "b"])
        let ann = try cluster.device("ann", on: "a")
        let ben = try cluster.device("ben", on: "b")
        let room = try Self.room(of: ann, with: [ben])
        var firstWrites: [Int] = []
        var refusals: [String] = []
        for round in 0..<10 {
            server.stop(mode: "fast")
            #expect(try ben.code("SAY \(room) during outage \(round)") == 503)
            try server.start()
            // b's writer reconnects after its pause; until then b may still say 503.
            var back: Int?
            for attempt in 0..<100 where back != 200 {
                back = try ben.code("SAY \(room) b back \(round) \(attempt)")
                if back != 200 { usleep(100_000) }
            }
            #expect(back == 200, "node b did not come back")
            var heard = false
            while !heard {
                heard = messageText(try ann.event(timeout: 30))?.hasPrefix("b back \(round) ") == true
            }
            let first = try ann.failure("SAY \(room) a after outage \(round)")
            firstWrites.append(first.code)
            if first.code != 200 { refusals.append(first.message + " :: " + cluster.node("a").stderr.text.split(separator: "\n").suffix(6).joined(separator: " | ")) }
        }
        #expect(firstWrites.allSatisfy { $0 == 200 }, "node a's first writes after each outage: \(firstWrites) \(refusals)")
    }
}

@testable import ChorusServer
import ChorusPostgres
import ChorusStore
import ChorusTestSupport
import Foundation
import Testing

/// Text mode shows every reader the times in event texts in their own zone (`NOTIFY tz=`,
/// CONTRACT §10): chat clocks, a reminder's due text, live, in SYNC, in a notice held for
/// a login, after a change of zone, and on another node; JSON is everyone's, unchanged.
@Suite struct ReaderZoneTests {
    /// Monday 7 Dec 2026, 10:00 UTC: 23:00 that Monday in Auckland, 10:00 in London.
    static let start = Date(timeIntervalSince1970: 1_796_637_600)

    /// carol (JSON, the server's zone) owns a room with alice (text, Auckland) and bob
    /// (text, London), on two loops so alice and bob may sit apart.
    private func household(clock: ManualClock) throws -> (server: TestServer, alice: TestClient, bob: TestClient, carol: Device,
                                                          room: Int) {
        let server = try TestServer(clock: clock) { $0.loops = max(2, $0.loops) }
        let carol = try server.device("carol")
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let room = id(try carol.ok("ROOM CREATE Flat")["room"])
        try carol.add("alice", to: room)
        try carol.add("bob", to: room)
        try textMode(alice.client, zone: "Pacific/Auckland")
        try textMode(bob.client, zone: "Europe/London")
        _ = try carol.drain()
        return (server, alice.client, bob.client, carol, room)
    }

    /// Switches a session to text mode, sets its person's zone and drops what came before.
    private func textMode(_ client: TestClient, zone: String) throws {
        #expect(try client.last("MODE text") == "OK mode text")
        #expect(try client.last("NOTIFY tz=\(zone)").hasPrefix("OK notices set"))
        drain(client)
    }

    /// Every event that reached `client` before the reply to a PING sent now.
    @discardableResult
    private func drain(_ client: TestClient) -> [String] {
        #expect((try? client.last("PING")) == "OK PONG")
        var lines: [String] = []
        while !client.events.isEmpty, let line = try? client.nextEvent() { lines.append(line) }
        return lines
    }

    private func tick(_ server: TestServer, _ clock: ManualClock, hours: Double) {
        clock.advance(by: hours * 3600)
        let checked = DispatchSemaphore(value: 0)
        server.server?.checkNotices { checked.signal() }
        #expect(checked.wait(timeout: .now() + 10) == .success, "the notice check did not finish")
    }

    /// One SAY: alice reads its clock in Auckland, bob in London; JSON carries no text,
    /// so carol's event is what it always was.
    @Test func chatClockInEachReadersZone() throws {
        let clock = ManualClock(Self.start)
        let (_, alice, bob, carol, room) = try household(clock: clock)
        let json = try carol.client.json("SAY \(room) the plumber comes at 10")
        #expect(json["type"] as? String == "ok")
        let said = try alice.nextEvent()
        #expect(said.hasPrefix("* 23:00 carol in Flat: the plumber comes at 10 [#"), "\(said)")
        let heard = try bob.nextEvent()
        #expect(heard.hasPrefix("* 10:00 carol in Flat: the plumber comes at 10 [#"), "\(heard)")

        // alice says something: carol's JSON event has no text and no mark, only the message.
        #expect(try alice.last("SAY \(room) milk?").hasPrefix("OK"))
        let line = try carol.client.nextEvent()
        #expect(!line.utf8.contains(0x1E) && !line.utf8.contains(0x1F))
        let event = try Device.decode(line)
        #expect(event["text"] == nil)
        #expect(Set(event.keys) == ["type", "event", "id", "at", "by", "room", "message"])
        #expect(object(event["message"])["text"] as? String == "milk?")
        #expect(object(event["message"])["at"] as? String == "2026-12-07T10:00:00Z")
        #expect(try bob.nextEvent().hasPrefix("* 10:00 alice in Flat: milk? [#"))
    }

    /// A reminder's due text: "tomorrow 09:00" in London is "today 22:00" in Auckland.
    /// SYNC and HISTORY show each reader's zone too.
    @Test func reminderAndLogInTheReadersZone() throws {
        let clock = ManualClock(Self.start)
        let (server, alice, bob, carol, room) = try household(clock: clock)
        try carol.ok("TASK ADD \(room) Bins due=2026-12-08T09:00:00Z remind=+1h")
        try carol.ok("SAY \(room) bins tomorrow")
        drain(alice)
        drain(bob)
        tick(server, clock, hours: 1)
        let forAlice = try alice.nextEvent()
        #expect(forAlice.hasPrefix("* reminder: #"), "\(forAlice)")
        #expect(forAlice.contains("Bins in Flat, due today 22:00 [#"), "\(forAlice)")
        let forBob = try bob.nextEvent()
        #expect(forBob.contains("Bins in Flat, due tomorrow 09:00 [#"), "\(forBob)")

        let aliceLog = try alice.call("SYNC 0")
        #expect(aliceLog.contains { $0.contains(" 23:00 carol in Flat: bins tomorrow") }, "\(aliceLog)")
        #expect(aliceLog.contains { $0.contains("Bins in Flat, due today 22:00") }, "\(aliceLog)")
        let bobLog = try bob.call("SYNC 0")
        #expect(bobLog.contains { $0.contains(" 10:00 carol in Flat: bins tomorrow") }, "\(bobLog)")
        #expect(bobLog.contains { $0.contains("Bins in Flat, due tomorrow 09:00") }, "\(bobLog)")
        for line in aliceLog + bobLog { #expect(!line.utf8.contains(0x1E) && !line.utf8.contains(0x1F), "\(line)") }

        // HISTORY: the message's stamp as of now (11:00 UTC: Tuesday already in Auckland).
        #expect(try alice.call("HISTORY \(room)").contains("  Mon 7 Dec 23:00 carol: bins tomorrow"))
        #expect(try bob.call("HISTORY \(room)").contains("  10:00 carol: bins tomorrow"))
    }

    /// DMs, comments and a repeating task's "next time" show their times in the reader's zone too.
    @Test func dmCommentAndNextTimeInTheReadersZone() throws {
        let clock = ManualClock(Self.start)
        let (_, alice, bob, carol, room) = try household(clock: clock)
        try carol.ok("DM alice the plumber is here")
        #expect(try alice.nextEvent().hasPrefix("* 23:00 carol → alice: the plumber is here [#"))
        let task = id(try carol.ok("TASK ADD \(room) Bins due=2026-12-08T09:00:00Z repeat=daily")["task"])
        drain(alice)
        drain(bob)
        try carol.ok("COMMENT \(task) the blue one")
        #expect(try alice.nextEvent().hasPrefix("* 23:00 carol on #\(task) Bins: the blue one [#"))
        #expect(try bob.nextEvent().hasPrefix("* 10:00 carol on #\(task) Bins: the blue one [#"))
        try carol.ok("TASK DONE \(task)")
        // The next one is due 09:00 UTC on Wednesday 9 December: 22:00 that day in Auckland.
        let forAlice = drain(alice).first { $0.contains("next time:") } ?? "none"
        #expect(forAlice.contains(" Bins, due Wed 9 Dec 22:00 (in 2 days) in Flat [#"), "\(forAlice)")
        let forBob = drain(bob).first { $0.contains("next time:") } ?? "none"
        #expect(forBob.contains(" Bins, due Wed 9 Dec 09:00 (in 2 days) in Flat [#"), "\(forBob)")
    }

    /// A notice held for someone with no session is told in their zone at their next login.
    @Test func heldNoticeInTheZoneOfTheLogin() throws {
        let clock = ManualClock(Self.start)
        let (server, alice, bob, carol, room) = try household(clock: clock)
        try carol.ok("TASK ADD \(room) Bins due=2026-12-08T09:00:00Z remind=+1h")
        alice.connection.close()
        bob.connection.close()
        tick(server, clock, hours: 1)
        for (name, expected) in [("alice", "due today 22:00"), ("bob", "due tomorrow 09:00")] {
            let again = try server.client()
            #expect(try again.last("LOGIN \(name) \"\(defaultPassword)\"").hasPrefix("OK logged in as \(name)"))
            let notice = try again.nextEvent()
            #expect(notice.hasPrefix("* reminder: #") && notice.contains("Bins in Flat, \(expected) [#"), "\(name): \(notice)")
        }
    }

    /// NOTIFY tz= changes what the next event shows, in that session and in another of the
    /// same person's already open (told by `notify.tz`); back to the server's zone too.
    @Test func changingTheZoneReachesOpenSessions() throws {
        let clock = ManualClock(Self.start)
        let (server, _, bob, carol, room) = try household(clock: clock)
        let other = try server.client()
        #expect(try other.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK"))
        drain(other)

        #expect(try bob.last("NOTIFY tz=Pacific/Auckland").hasPrefix("OK notices set"))
        #expect(try other.nextEvent().hasPrefix("* your times are shown in Pacific/Auckland now [#"))
        try carol.ok("SAY \(room) hello")
        #expect(try bob.nextEvent().hasPrefix("* 23:00 carol in Flat: hello"))
        #expect(try other.nextEvent().hasPrefix("* 23:00 carol in Flat: hello"))
        // The same zone again changes nothing and tells nobody.
        #expect(try bob.last("NOTIFY tz=Pacific/Auckland").hasPrefix("OK notices set"))
        #expect(drain(other).isEmpty)

        // JSON sessions learn it as an event too.
        let watcher = try server.device("bob", label: "bob's JSON session", register: false)
        #expect(try bob.last("NOTIFY tz=Europe/London").hasPrefix("OK"))
        let told = try watcher.event()
        #expect(told["event"] as? String == "notify.tz")
        #expect(told["tz"] as? String == "Europe/London")
        #expect(try other.nextEvent().hasPrefix("* your times are shown in Europe/London now"))
        try carol.ok("SAY \(room) again")
        #expect(try other.nextEvent().hasPrefix("* 10:00 carol in Flat: again"))
    }

    /// Marks are made of control characters no line may hold: a chat line with them is
    /// refused as a line (400) in both modes, and text that spells a mark's body shows as typed.
    @Test func noOneCanForgeATime() throws {
        let clock = ManualClock(Self.start)
        let (_, alice, bob, carol, room) = try household(clock: clock)
        try carol.client.connection.sendRaw(Array("SAY \(room) at \u{1E}c0\u{1F} sharp\r\n".utf8))
        let refused = try Device.decode(try carol.client.reply().last ?? "")
        #expect(refused["code"] as? Int == 400, "\(refused)")
        try alice.connection.sendRaw(Array("SAY \(room) at \u{1E}c0\u{1F} sharp\r\n".utf8))
        #expect(try alice.reply().last?.hasPrefix("ERR 400") == true)
        #expect(drain(bob).isEmpty)
        #expect(try alice.last("SAY \(room) at c0 or c1796637600 or d1 2026-12-08").hasPrefix("OK"))
        #expect(try bob.nextEvent().hasPrefix("* 10:00 alice in Flat: at c0 or c1796637600 or d1 2026-12-08 [#"))
    }
}

/// A session on another node of a cluster sees times in its own zone, and learns a change
/// made on the first node.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason), .timeLimit(.minutes(10)))
struct ClusterReaderZoneTests {
    @Test func eachNodeShowsItsReadersZone() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let clock = ManualClock(ReaderZoneTests.start)
        func node(_ name: String) throws -> TestServer {
            try TestServer(clock: clock, configure: { $0.loops = 2 }, store: { _ in try PostgresQueue(conninfo: conninfo, node: name) },
                           feed: { try PostgresEventFeed(conninfo: conninfo, node: name) })
        }
        let a = try node("a")
        let b = try node("b")
        let ann = try a.device("ann")
        let ben = try b.device("ben")
        let room = id(try ann.ok("ROOM CREATE Shared")["room"])
        try ann.add("ben", to: room)
        _ = try ben.drain()
        #expect(try ben.client.last("MODE text") == "OK mode text")
        #expect(try ben.client.last("NOTIFY tz=Pacific/Auckland").hasPrefix("OK"))
        // ben's second session, on node a, learns the zone from the log.
        let benOnA = try a.client()
        #expect(try benOnA.last("LOGIN ben \"\(defaultPassword)\"").hasPrefix("OK"))
        try ann.ok("SAY \(room) hi")
        // Other events of the room (ben joining) may still be on their way through the tail.
        func line(_ client: TestClient, _ text: String) -> String {
            client.takeEvent(timeout: 20) { $0.contains(text) } ?? "nothing with \(text)"
        }
        #expect(line(ben.client, " ann in Shared: hi").hasPrefix("* 23:00 ann in Shared: hi [#"))
        #expect(line(benOnA, " ann in Shared: hi").hasPrefix("* 23:00 ann in Shared: hi [#"))

        #expect(try benOnA.last("NOTIFY tz=Europe/London").hasPrefix("OK"))
        #expect(line(ben.client, "your times").hasPrefix("* your times are shown in Europe/London now"))
        try ann.ok("SAY \(room) again")
        #expect(line(ben.client, " ann in Shared: again").hasPrefix("* 10:00 ann in Shared: again [#"))
        #expect(line(benOnA, " ann in Shared: again").hasPrefix("* 10:00 ann in Shared: again [#"))
        let log = try ben.client.call("SYNC 0")
        #expect(log.contains { $0.contains(" 10:00 ann in Shared: hi") }, "\(log)")
    }
}

import ChorusServer
import ChorusSQLite
import Foundation
import Testing

/// "Replies follow earlier events", made to happen in one loop turn: each test brings an
/// event for a session into its loop's pending fan-out and, in the same turn, has the hub
/// write something else to that session. Only the hub's explicit flush before that write
/// (`PendingFanOut.flush`) keeps the event first; without it the event would join the
/// turn's end after the reply, or be dropped behind a closing `bye`.
@Suite struct FlushOrderTests {
    /// A server whose store the test can hold (`HeldStore`).
    private func heldServer(_ configure: @escaping (inout ServerConfiguration) -> Void = { $0.loops = 1 }) throws
        -> (TestServer, HeldStore) {
        let box = HeldStoreBox()
        let server = try TestServer(configure: configure, store: HeldStore.opener(into: box))
        return (server, box.store)
    }

    /// alice's room with bob in it, both in JSON mode, nothing left to read.
    private func household(on server: TestServer) throws -> (alice: Device, bob: Device, room: Int) {
        let alice = try server.device("alice")
        let bob = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("bob", to: room)
        for device in [alice, bob] { _ = try device.drain() }
        return (alice, bob, room)
    }

    /// Lines until the server closes the connection.
    private func linesUntilClosed(_ client: TestClient) throws -> [String] {
        var lines: [String] = []
        while let line = try client.connection.readLine(timeout: 10) { lines.append(line) }
        return lines
    }

    /// Whether `lines` has a line with `first` before the first line with `then`.
    private func comesBefore(_ first: String, _ then: String, in lines: [String]) -> Bool {
        guard let a = lines.firstIndex(where: { $0.contains(first) }),
              let b = lines.firstIndex(where: { $0.contains(then) }) else { return false }
        return a < b
    }

    /// Guards the flush in `Hub.releaseReplies`: alice's line and bob's commit in one batch,
    /// so bob's OK is released in the very inbox run that queued alice's line for him.
    @Test func householdReplyFollowsAnEventOfTheSameBatch() throws {
        let (server, store) = try heldServer()
        let (alice, bob, room) = try household(on: server)
        let before = store.counts.submitted
        store.holdDatabase()
        try alice.client.connection.send("SAY \(room) alice-first")
        store.waitFor(submitted: before + 1)
        try bob.client.connection.send("SAY \(room) bob-second")
        store.waitFor(submitted: before + 2)
        store.releaseDatabase()

        let reply = try Device.decode(try bob.client.reply().last ?? "")
        #expect(reply["type"] as? String == "ok", "\(reply)")
        #expect(bob.client.events.contains { $0.contains("alice-first") },
                "bob's OK came before alice's earlier line: \(bob.client.events)")
        #expect(try alice.client.reply().last?.contains("ok") == true)
    }

    /// Guards the flush in `Hub.runOffLoop`: bob's AUTH (one store job, answered off the
    /// loop) commits in the batch after alice's line, so its reply reaches the loop in the
    /// same inbox run as her line.
    @Test func offLoopReplyFollowsAnEventOfTheSameBatch() throws {
        let (server, store) = try heldServer()
        let (alice, bob, room) = try household(on: server)
        let secret = try #require(try bob.ok("TOKEN CREATE phone")["token"] as? String)
        let before = store.counts.submitted
        store.holdDatabase()
        try alice.client.connection.send("SAY \(room) alice-first")
        store.waitFor(submitted: before + 1)
        try bob.client.connection.send("AUTH \(secret)")
        store.waitFor(submitted: before + 2)
        store.releaseDatabase()

        let reply = try Device.decode(try bob.client.reply().last ?? "")
        #expect(reply["type"] as? String == "ok", "\(reply)")
        #expect(bob.client.events.contains { $0.contains("alice-first") },
                "bob's AUTH reply came before alice's earlier line: \(bob.client.events)")
    }

    /// Guards the flush in `Hub.processLines` before a line other than a household command:
    /// bob is out of tokens, so his next PING runs from the token timer, which fires in the
    /// turn (after its inbox run) that queues alice's line for him.
    @Test func lineRunByTheTokenTimerFollowsAnEventOfItsTurn() throws {
        let (server, store) = try heldServer {
            $0.loops = 1
            $0.rate = 2
            $0.burst = 6
        }
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let bob = try server.device("bob")
        try alice.add("bob", to: room)
        let pings = 12
        try bob.client.connection.sendRaw(Array((1...pings).map { "PING p\($0)\r\n" }.joined().utf8))
        // Once the first PONG is here, the loop has read them all and bob waits for a token.
        while try !(#require(try bob.client.connection.readLine()).contains("\"p1\"")) {}

        let completed = store.counts.completed
        store.stallLoopAtNextCommand()
        try alice.client.connection.send("SAY \(room) alice-first")
        store.waitUntilLoopStalled()
        store.waitFor(completed: completed + 1)
        // Past bob's next token: his timer is due when the loop goes on.
        Thread.sleep(forTimeInterval: 0.8)
        var early: [String] = []
        while let line = try? bob.client.connection.readLine(timeout: 0.3) { early.append(line) }
        let answered = 1 + early.filter { $0.contains("\"pong\"") }.count
        try #require(answered < pings, "bob's PINGs were all answered before the test could start: \(early)")
        store.resumeLoop()

        let next = try #require(try bob.client.connection.readLine())
        #expect(next.contains("alice-first"), "after \(answered) PONGs, bob got \(next) before alice's line")
    }

    /// Guards the flush before the idle timeout's error (`SessionTable.scheduleIdleCheck`):
    /// bob's idle timer fires in the turn that queues alice's line for him.
    @Test func idleErrorFollowsAnEventOfItsTurn() throws {
        let idle = 3.0
        let (server, store) = try heldServer {
            $0.loops = 1
            $0.idleTimeout = idle
        }
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let bob = try server.device("bob")
        // bob's last line was MODE json, answered by now.
        let bobQuietSince = Date()
        try alice.add("bob", to: room)

        let completed = store.counts.completed
        store.stallLoopAtNextCommand()
        try alice.client.connection.send("SAY \(room) alice-first")
        store.waitUntilLoopStalled()
        store.waitFor(completed: completed + 1)
        // Past every idle check armed for bob so far (each is at most 1 s after the last
        // one, or the timeout after his last line).
        Thread.sleep(until: bobQuietSince.addingTimeInterval(idle + 0.8))
        store.resumeLoop()

        let lines = try linesUntilClosed(bob.client)
        #expect(comesBefore("alice-first", "429", in: lines), "bob got \(lines)")
    }

    /// Guards the flush before shutdown's `bye` (`Hub.shutDown`): the shutdown reaches the
    /// loop's inbox just after the result that queues alice's line for bob.
    @Test func shutdownByeFollowsAnEventOfItsTurn() throws {
        let (server, store) = try heldServer()
        let (alice, bob, room) = try household(on: server)
        let running = try #require(server.server)
        let completed = store.counts.completed
        store.stallLoopAtNextCommand()
        try alice.client.connection.send("SAY \(room) alice-first")
        store.waitUntilLoopStalled()
        store.waitFor(completed: completed + 1)
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            running.shutDown()
            stopped.signal()
        }.start()
        // Time for the shutdown to be queued behind alice's result.
        Thread.sleep(forTimeInterval: 0.3)
        store.resumeLoop()

        let lines = try linesUntilClosed(bob.client)
        #expect(stopped.wait(timeout: .now() + 60) == .success, "the server did not finish shutting down")
        #expect(comesBefore("alice-first", "\"bye\"", in: lines), "bob got \(lines)")
    }

    /// Guards the flush in `Hub.closeSessions(ofUsers:)`: on two loops, root's line and
    /// his KICK of bob commit in one batch and reach bob's loop in one inbox run, where no
    /// reply is written that would flush for them.
    @Test func kickByeFollowsAnEventOfTheSameBatch() throws {
        let server = try TestServer { $0.loops = 2 }
        let root = try server.device("root")  // loop 0
        let bob = try server.device("bob")  // loop 1
        try grantAdmin("root", on: server)
        let room = id(try root.ok("ROOM CREATE Flat")["room"])
        try root.add("bob", to: room)
        _ = try bob.drain()
        try root.client.connection.sendRaw(Array("SAY \(room) root-first\r\nADMIN KICK bob\r\n".utf8))

        let lines = try linesUntilClosed(bob.client)
        #expect(comesBefore("root-first", "\"bye\"", in: lines), "bob got \(lines)")
    }

    /// Guards the flush in `Hub.closeSessions(ofToken:)`: the same, for a bot whose token
    /// its account revokes right after a line the bot should still hear.
    @Test func revokedTokenByeFollowsAnEventOfTheSameBatch() throws {
        let server = try TestServer { $0.loops = 2 }
        let owner = try server.device("housebot")  // loop 0
        let room = id(try owner.ok("ROOM CREATE Flat")["room"])
        let secret = try #require(try owner.ok("TOKEN CREATE cron")["token"] as? String)
        let bot = try server.client()  // loop 1
        #expect(try bot.last("AUTH \(secret)").hasPrefix("OK"))
        try owner.client.connection.sendRaw(Array("SAY \(room) owner-first\r\nTOKEN REVOKE cron\r\n".utf8))

        let lines = try linesUntilClosed(bot)
        #expect(comesBefore("owner-first", "* bye", in: lines), "the bot got \(lines)")
    }

    /// Makes `name` a server admin in the database, as `chorusd admin grant` does.
    private func grantAdmin(_ name: String, on server: TestServer) throws {
        let database = try Database(path: server.configuration.databasePath)
        defer { database.close() }
        #expect(try database.setAdmin(name: name, true))
    }
}

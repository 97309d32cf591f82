import ChorusClient
import Foundation
import ChorusLocking
import Testing

/// Abusive, slow and broken clients: each slows or loses only itself.
@Suite struct HardeningTests {
    /// Commands over the rate wait rather than being dropped, and other sessions are
    /// answered meanwhile.
    @Test func floodingSlowsOnlyTheFlooder() throws {
        let server = try TestServer { $0.rate = 5; $0.burst = 5 }
        let flooder = try server.client()
        let neighbour = try server.client()
        try flooder.connection.sendRaw(Array((0..<20).map { "@f\($0) PING \($0)\r\n" }.joined().utf8))
        for index in 0..<5 { #expect(try flooder.reply().last == "@f\(index) OK PONG \(index)") }
        // The flooder still has 15 waiting; the neighbour is served at once.
        #expect(try neighbour.last("PING here") == "OK PONG here")
        #expect(throws: LineClient.Failure.self) { try flooder.connection.readLine(timeout: 0.05) }
        for index in 5..<20 { #expect(try flooder.reply(timeout: 20).last == "@f\(index) OK PONG \(index)") }
    }

    /// A session that never reads is dropped when its queue passes --sendq; a reader that
    /// keeps up gets every event, and the sender is never held back.
    @Test func slowReaderIsDroppedAndOthersCarryOn() throws {
        let server = try TestServer { $0.sendQueueBytes = 262_144 }
        let sender = try server.device("sender")
        let reader = try server.device("reader")
        let sleeper = try server.client()
        #expect(try sleeper.last("REGISTER sleeper \"\(defaultPassword)\"").hasPrefix("OK"))
        let room = id(try sender.ok("ROOM CREATE Flat")["room"])
        try sender.add("reader", to: room)
        try sender.add("sleeper", to: room)
        _ = try reader.drain()
        let count = 3000
        // The reader keeps up on its own thread; the sleeper reads nothing until the end.
        let counter = MessageCounter(reader, until: count)
        try sender.flood(room, count: count)
        #expect(counter.wait(seconds: 60))
        #expect(counter.count == count)
        // The sleeper was cut off: draining its socket ends in a close, long before all the messages.
        var lines = 0
        while try sleeper.connection.readLine(timeout: 20) != nil { lines += 1 }
        #expect(lines < count)
    }

    /// Long catch-ups come in pages that end early rather than as one reply of megabytes,
    /// and a reply larger than --sendq still reaches a client that reads: SYNC and HISTORY
    /// over 40 messages of 4,000 two-byte characters (330 KB) with a 64 KiB queue. Before,
    /// the server closed the connection in the middle of `SYNC 0 500`, and a client
    /// replaying from there after reconnecting was closed again, forever.
    @Test func longPagesEndEarlyAndBigRepliesReachAReader() throws {
        let server = try TestServer { $0.sendQueueBytes = 65_536 }
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let text = String(repeating: "é", count: 3990)
        for index in 0..<40 { try alice.ok("SAY \(room) \(index) \(text)") }

        var after = 0
        var synced: [String] = []
        var pages = 0
        while true {
            let page = try alice.ok("SYNC \(after) 500")
            pages += 1
            let events = page["events"] as? [JSON] ?? []
            #expect(!events.isEmpty)
            synced += events.compactMap { object($0["message"])["text"] as? String }
            after = page["last"] as? Int ?? after
            if page["more"] as? Bool != true { break }
        }
        #expect(synced == (0..<40).map { "\($0) \(text)" })
        #expect(pages >= 2 && pages <= 4, "about 256 KiB a page: \(pages) pages")

        let newest = try alice.ok("HISTORY \(room) 200")
        let newestTexts = (newest["messages"] as? [JSON] ?? []).compactMap { $0["text"] as? String }
        #expect(newest["more"] as? Bool == true)
        #expect(newestTexts.count > 1 && newestTexts.count < 40)
        #expect(newestTexts.last == "39 \(text)", "the newest are kept")
        let oldestKept = (newest["messages"] as? [JSON])?.first?["id"] as? Int ?? 0
        let older = try alice.ok("HISTORY \(room) 200 before=\(oldestKept)")
        let olderTexts = (older["messages"] as? [JSON] ?? []).compactMap { $0["text"] as? String }
        #expect(olderTexts.last.map { "\($0)" } == "\(39 - newestTexts.count) \(text)")
        #expect(try alice.ok("PING alive")["pong"] as? String == "alive")
    }

    /// A member who stops reading for a while, long enough for the kernel's buffers to
    /// fill and the server to keep the rest, gets every line intact and in order once it
    /// reads again (what OpenSSL could not take at once is queued, not lost).
    @Test func aPausedReaderGetsEverythingWhenItReadsAgain() throws {
        let server = try TestServer { $0.sendQueueBytes = 64 << 20 }
        let sender = try server.device("sender")
        let napper = try server.device("napper")
        let room = id(try sender.ok("ROOM CREATE Flat")["room"])
        try sender.add("napper", to: room)
        _ = try napper.drain()
        // About 16 MB of events: more than loopback TCP buffers on both sides hold.
        let count = 4000
        let text = String(repeating: "y", count: 3900)
        for batch in stride(from: 0, to: count, by: 100) {
            let replies = try sender.pipeline((batch..<batch + 100).map { "SAY \(room) \($0) \(text)" })
            #expect(replies.allSatisfy { $0["type"] as? String == "ok" })
        }
        for index in 0..<count {
            let event = try napper.event(timeout: 30)
            #expect(object(event["message"])["text"] as? String == "\(index) \(text)")
        }
    }

    /// A member who stops reading is closed once its output has waited --send-timeout
    /// seconds with the socket taking nothing, though its queue is far below --sendq;
    /// one who reads at its own pace, megabytes behind and pausing for more than half the
    /// timeout at a time (two pauses together pass it), is not: each read starts the wait
    /// over. Before, the stalled one kept its megabytes until the idle timeout (ten minutes
    /// by default). The pauses leave 2.5 s to spare for a loaded machine.
    @Test func aStalledReaderIsClosedAfterTheSendTimeout() throws {
        let server = try TestServer { $0.sendQueueBytes = 64 << 20; $0.sendTimeout = 6 }
        let sender = try server.device("sender")
        let sleeper = try server.device("sleeper")
        let reader = try server.device("reader")
        let room = id(try sender.ok("ROOM CREATE Flat")["room"])
        try sender.add("sleeper", to: room)
        try sender.add("reader", to: room)
        _ = try sleeper.drain()
        _ = try reader.drain()
        // About 8 MB of events: more than the kernel holds for a client that reads little.
        let count = 2000
        let text = String(repeating: "z", count: 3900)
        var read = 0
        func readOn(to end: Int) throws {
            while read < end {
                #expect(object(try reader.event(timeout: 30)["message"])["text"] as? String == "\(read) \(text)")
                read += 1
            }
        }
        for batch in stride(from: 0, to: count, by: 50) {
            let replies = try sender.pipeline((batch..<batch + 50).map { "SAY \(room) \($0) \(text)" })
            #expect(replies.allSatisfy { $0["type"] as? String == "ok" })
            try readOn(to: read + 10) // a fifth of each batch: falling behind
        }
        Thread.sleep(forTimeInterval: 3.5)
        try readOn(to: read + 200)
        Thread.sleep(forTimeInterval: 3.5)
        try readOn(to: count)
        #expect(try reader.ok("PING still")["pong"] as? String == "still")

        // The sleeper's output has waited since early on. Each check first writes what the
        // socket has room for (the kernel keeps sending into the client's window for a
        // while), so it goes within two or three checks: wait until it is shown offline.
        let sleeperOnline = { () throws -> Bool in
            let members = object(try sender.ok("ROOM SHOW \(room)")["room"])["members"] as? [JSON] ?? []
            return members.contains { $0["name"] as? String == "sleeper" && $0["online"] as? Bool == true }
        }
        let deadline = Date().addingTimeInterval(30)
        while try sleeperOnline() && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(try !sleeperOnline(), "the stalled session is still open")
        var slept = 0
        while let line = try sleeper.client.connection.readLine(timeout: 30) {
            if line.hasPrefix("{\"type\":\"event\"") { slept += 1 }
        }
        #expect(slept < count, "the stalled session was closed before it had everything")
    }

    /// Past --max-per-ip, a new connection gets ERR 503 and is closed; closing one frees a place.
    @Test func perAddressLimit() throws {
        let server = try TestServer { $0.maxPerAddress = 2; $0.exempt = [] }
        let first = try server.client()
        let second = try server.client()
        let connection = try LineClient(port: server.port, trust: .certificateFile(server.certificatePath))
        #expect(try connection.readLine()?.hasPrefix("ERR 503 too many connections from 127.0.0.1") == true)
        #expect(try connection.readLine() == nil)
        first.connection.close()
        #expect(try second.last("PING") == "OK PONG")
        // The freed place is taken again once the server has seen the close.
        var admitted: TestClient?
        for _ in 0..<50 where admitted == nil {
            admitted = try? server.client()
            if admitted?.greeting.hasPrefix("*") != true { admitted = nil; Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(admitted != nil)
    }

    /// Loopback is exempt from the per-address limit by default; --max-connections still holds.
    @Test func totalLimit() throws {
        let server = try TestServer { $0.maxPerAddress = 1; $0.maxConnections = 2 }
        let first = try server.client()
        let second = try server.client()
        let third = try LineClient(port: server.port, trust: .certificateFile(server.certificatePath))
        #expect(try third.readLine()?.hasPrefix("ERR 503 too many connections to this server") == true)
        #expect(try first.last("PING") == "OK PONG")
        #expect(try second.last("PING") == "OK PONG")
    }

    /// A hundred sockets that never handshake do not keep a real client waiting, and are
    /// closed after the handshake timeout.
    @Test func stalledSocketsDoNotBlockOthers() throws {
        let server = try TestServer { $0.handshakeTimeout = 2 }
        var stalled: [Int32] = []
        defer { stalled.forEach { close($0) } }
        for _ in 0..<100 { stalled.append(rawConnection(port: server.port)) }
        let client = try server.client()
        #expect(try client.last("PING") == "OK PONG")
        // The server hangs up on the stalled ones: a read sees the end.
        var buffer = [UInt8](repeating: 0, count: 16)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(stalled[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #expect(read(stalled[0], &buffer, buffer.count) == 0)
    }

    /// Five wrong passwords in a row from one address get 429 there, even with the right one next.
    @Test func failedLoginsAreThrottled() throws {
        let server = try TestServer()
        _ = try server.user("alice")
        let attacker = try server.client()
        for _ in 0..<5 {
            #expect(try attacker.last("LOGIN alice \"not the right password\"") == "ERR 401 wrong name or password")
        }
        #expect(try attacker.last("LOGIN alice \"\(defaultPassword)\"").hasPrefix("ERR 429 too many failed logins for alice"))
        #expect(try attacker.last("LOGIN Alice \"\(defaultPassword)\"").hasPrefix("ERR 429"))
        // Other names are not affected.
        _ = try server.user("bob")
        #expect(try attacker.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK logged in as bob"))
    }

    /// Before login, lines are kept small.
    @Test func smallLinesBeforeLogin() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.last("PING \(String(repeating: "x", count: 5000))").hasPrefix("ERR 413 before login"))
        #expect(try client.last("REGISTER carol \"\(defaultPassword)\"").hasPrefix("OK"))
        #expect(try client.last("PING \(String(repeating: "x", count: 5000))").hasPrefix("OK PONG"))
    }

    /// A full database refuses writes with 503, keeps nothing half-written, and still serves reads.
    @Test func fullStorageRefusesWritesAndServesReads() throws {
        let server = try TestServer { $0.databasePageLimit = 60 }
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let text = String(repeating: "y", count: 3000)
        var acknowledged = 0
        var refusal: (code: Int, message: String) = (200, "")
        for index in 0..<200 {
            refusal = try alice.failure("SAY \(room) \(index) \(text)")
            if refusal.code != 200 { break }
            acknowledged += 1
        }
        #expect(refusal.code == 503)
        #expect(refusal.message == "storage full")
        // Reads still work, and every acknowledged message is there.
        let history = try alice.ok("HISTORY \(room) 200")["messages"] as? [JSON] ?? []
        #expect(history.count == acknowledged)
        #expect(try alice.ok("ROOMS")["rooms"] is [JSON])
    }
}

import ChorusClient
import ChorusLocking
import ChorusServer
import ChorusTestSupport
import Foundation
import Testing

/// The web door over real TLS on loopback (CONTRACT §9): which protocol a connection
/// speaks, the HTTP rules, WebSocket sessions and their close codes, and line and
/// WebSocket members of one room hearing each other.
@Suite(.serialized) struct WebDoorTests {
    static let password = "correct horse battery staple"

    // MARK: Which door

    @Test func alpnChorusIsGreetedAtOnceAndHTTPIsChosenForBrowsers() throws {
        let server = try TestServer()
        let line = try LineClient(port: server.port, trust: .insecure)
        #expect(line.applicationProtocol == "chorus")
        #expect(try line.readLine(timeout: 2)?.hasPrefix("* chorus") == true)

        let web = try WebClient(port: server.port, protocols: ["h2", "http/1.1"])
        #expect(web.applicationProtocol == "http/1.1", "never h2")
        #expect(try web.request("GET", "/healthz").status == 200)
    }

    @Test func withoutALPNTheFirstBytesDecide() throws {
        let server = try TestServer()
        // An HTTP request line: HTTP, and no greeting before the response.
        let web = try WebClient(port: server.port, protocols: [])
        #expect(web.applicationProtocol == nil)
        let health = try web.request("GET", "/healthz")
        #expect(health.status == 200 && health.text == "ok\n")

        // A client offering only h2 gets no ALPN; silent, it is greeted as a line session.
        let h2 = try LineClient(port: server.port, trust: .insecure, applicationProtocols: ["h2"])
        #expect(h2.applicationProtocol == nil)
        #expect(try h2.readLine(timeout: 5)?.hasPrefix("* chorus") == true)

        // A line sent at once (before any greeting) is a line session too: greeting, then reply.
        let eager = try LineClient(port: server.port, trust: .insecure, applicationProtocols: [])
        try eager.send("PING now")
        #expect(try eager.readLine()?.hasPrefix("* chorus") == true)
        #expect(try eager.readLine() == "OK PONG now")
    }

    // MARK: HTTP

    @Test func everyResponseCarriesTheSecurityHeadersAndConnectionsStayOpen() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let page = try web.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["strict-transport-security"]?.hasPrefix("max-age=") == true)
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        let policy = page.headers["content-security-policy"] ?? ""
        #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
        // Kept alive: the same connection answers again, HEAD without a body.
        let head = try web.request("HEAD", "/")
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == page.headers["content-length"])
        #expect(try web.request("GET", "/manifest.webmanifest").headers["content-type"] == "application/manifest+json")
        #expect(try web.request("GET", "/nothing-here").status == 404)
        let post = try web.request("POST", "/")
        #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
        // Pipelined: three requests in one write, three responses in order.
        try web.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try web.readResponse().status == 200)
        #expect(try web.readResponse().status == 404)
        #expect(try web.readResponse(headOnly: true).status == 200)
        // Connection: close is honoured.
        let last = try web.request("GET", "/healthz", close: true)
        #expect(last.headers["connection"] == "close")
        #expect(try web.isClosedByServer())
    }

    /// Requests spend the session's rate tokens like lines: past the burst they wait their
    /// turn and are all answered, in order.
    @Test func requestsPastTheBurstWaitForTokens() throws {
        let server = try TestServer { $0.rate = 5; $0.burst = 2 }
        let web = try WebClient(port: server.port)
        try web.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\n", count: 4))
        for _ in 0..<4 {
            #expect(try web.readResponse().status == 200)
            #expect(try web.readResponse().status == 404)
        }
    }

    @Test(arguments: [
        ("BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
        ("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\n", 413),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n", 431),
        ("GET /\u{1} HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n\r\n", 400),
    ])
    func badRequestsAreRefusedAndTheConnectionClosed(request: String, status: Int) throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        try web.send(request)
        let response = try web.readResponse()
        #expect(response.status == status, "\(request.prefix(60))")
        #expect(response.headers["connection"] == "close")
        #expect(try web.isClosedByServer())
        // The server is fine for the next one.
        #expect(try WebClient(port: server.port).request("GET", "/healthz").status == 200)
    }

    // MARK: WebSocket

    @Test func aWebSocketSessionIsAJSONSessionWithFrames() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let upgrade = try web.upgrade()
        #expect(upgrade.status == 101)
        #expect(upgrade.headers["sec-websocket-accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(upgrade.headers["upgrade"]?.lowercased() == "websocket")
        // No greeting frame: the first frame is the reply to the first request.
        let registered = try web.json("@r1 REGISTER wendy \"\(Self.password)\"")
        #expect(registered["type"] as? String == "ok" && registered["tag"] as? String == "r1", "\(registered)")
        #expect(try web.json("PING hi")["pong"] as? String == "hi")
        // Text mode would break one-object-per-frame.
        let mode = try web.json("MODE text")
        #expect(mode["type"] as? String == "error", "\(mode)")
        #expect(try web.json("WHOAMI")["type"] as? String == "ok")
    }

    @Test func lineAndWebSocketMembersOfOneRoomHearEachOther() throws {
        let server = try TestServer()
        let line = try server.user("lena")
        #expect(try line.last("MODE json").contains("json"))
        let room = try line.json("ROOM CREATE Flat")
        let roomID = (room["room"] as? [String: Any])?["id"] as? Int ?? 0
        let code = try line.json("ROOM INVITE \(roomID)")["code"] as? String ?? ""

        let web = try WebClient(port: server.port)
        #expect(try web.upgrade().status == 101)
        #expect(try web.json("REGISTER wes \"\(Self.password)\"")["type"] as? String == "ok")
        #expect(try web.json("ROOM JOIN \(code)")["type"] as? String == "ok")

        #expect(try line.json("SAY \(roomID) from the terminal")["type"] as? String == "ok")
        var heard = try web.event()
        while heard["event"] as? String != "message" { heard = try web.event() }
        #expect((heard["message"] as? [String: Any])?["text"] as? String == "from the terminal", "\(heard)")

        #expect(try web.json("SAY \(roomID) from the browser")["type"] as? String == "ok")
        var event = try line.nextEvent()
        while !event.contains("\"message\"") { event = try line.nextEvent() }
        #expect(event.contains("from the browser"))

        // SYNC over the socket gives the same log.
        let sync = try web.json("SYNC 0")
        #expect(sync["type"] as? String == "ok", "\(sync)")
    }

    @Test func aForeignOriginIsRefusedAndOursIsNot() throws {
        let server = try TestServer()
        let foreign = try WebClient(port: server.port)
        let refused = try foreign.upgrade(origin: "https://evil.example")
        #expect(refused.status == 403)
        #expect(try foreign.isClosedByServer())
        let ours = try WebClient(port: server.port)
        #expect(try ours.upgrade(origin: "https://localhost:\(server.port)").status == 101)
        let extra = try TestServer { $0.webOrigins = ["https://chores.example.org"] }
        #expect(try WebClient(port: extra.port).upgrade(origin: "https://chores.example.org").status == 101)
        #expect(try WebClient(port: extra.port).upgrade(origin: "https://chores.example.org.evil.example").status == 403)
    }

    @Test func aWrongVersionGets426() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let response = try web.request("GET", "/ws", headers: [("Upgrade", "websocket"), ("Connection", "Upgrade"),
                                                               ("Sec-WebSocket-Key", WebClient.sampleKey),
                                                               ("Sec-WebSocket-Version", "8")])
        #expect(response.status == 426 && response.headers["sec-websocket-version"] == "13")
    }

    /// Each broken frame gets its close code, then the connection ends.
    @Test(arguments: [
        ("unmasked", WebClient.frame(opcode: 1, Array("PING".utf8), masked: false), UInt16(1002)),
        ("binary", WebClient.frame(opcode: 2, [1, 2, 3]), UInt16(1003)),
        ("invalid UTF-8", WebClient.frame(opcode: 1, [0x50, 0xff, 0xfe]), UInt16(1007)),
        ("too big", WebClient.frame(opcode: 1, Array(repeating: 0x41, count: 9000)), UInt16(1009)),
        ("unknown opcode", WebClient.frame(opcode: 3, []), UInt16(1002)),
    ])
    func brokenFramesCloseWithTheirCode(name: String, frame: [UInt8], code: UInt16) throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        #expect(try web.upgrade().status == 101)
        try web.send(frame)
        let close = try web.readFrame()
        #expect(close?.opcode == 8 && close?.closeCode == code, "\(name): \(String(describing: close))")
        #expect(try web.isClosedByServer())
    }

    @Test func pingsFragmentsAndTheClosingHandshake() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        #expect(try web.upgrade().status == 101)
        try web.send(WebClient.frame(opcode: 9, Array("are you there".utf8)))
        #expect(try web.readFrame() == WebClient.Frame(opcode: 10, payload: Array("are you there".utf8)))
        // A message in three fragments with a ping between them.
        try web.send(WebClient.frame(opcode: 1, Array("PI".utf8), fin: false))
        try web.send(WebClient.frame(opcode: 9, [7]))
        try web.send(WebClient.frame(opcode: 0, Array("NG ".utf8), fin: false))
        try web.send(WebClient.frame(opcode: 0, Array("joined".utf8)))
        #expect(try web.readFrame() == WebClient.Frame(opcode: 10, payload: [7]))
        let pong = try web.readJSON()
        #expect(pong?["pong"] as? String == "joined", "\(String(describing: pong))")
        // The client closes: the server answers with the same code and hangs up.
        try web.send(WebClient.frame(opcode: 8, [0x03, 0xe8]))
        #expect(try web.readFrame()?.closeCode == 1000)
        #expect(try web.isClosedByServer())
    }

    @Test func aQuietSessionIsPingedAndClosedWith1001WhenItDoesNotAnswer() throws {
        let server = try TestServer { $0.idleTimeout = 2 }
        let answering = try WebClient(port: server.port)
        #expect(try answering.upgrade().status == 101)
        let silent = try WebClient(port: server.port)
        #expect(try silent.upgrade().status == 101)
        // The one that answers its pings stays past the timeout.
        for _ in 0..<3 {
            let ping = try answering.readFrame(timeout: 5)
            #expect(ping?.opcode == 9)
            try answering.send(WebClient.frame(opcode: 10, ping?.payload ?? []))
        }
        #expect(try answering.json("PING")["type"] as? String == "ok")
        // The other got its ping, said nothing, and was closed with 1001.
        #expect(try silent.readFrame(timeout: 5)?.opcode == 9)
        var frame = try silent.readFrame(timeout: 5)
        while let got = frame, got.opcode != 8 { frame = try silent.readFrame(timeout: 5) }
        #expect(frame?.closeCode == 1001)
        #expect(try silent.isClosedByServer())
    }

    @Test func shuttingDownSaysByeAndCloses1001() throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        #expect(try web.upgrade().status == 101)
        #expect(try web.json("PING")["type"] as? String == "ok")
        server.stop()
        let bye = try web.readJSON()
        #expect(bye?["event"] as? String == "bye")
        #expect(try web.readFrame()?.closeCode == 1001)
    }
}

/// The door's limits under load, and clients nobody here wrote.
@Suite(.serialized) struct WebDoorPeerTests {
    /// A WebSocket member that reads nothing is dropped at --sendq while a line member
    /// who reads gets every message and the sender is never held back.
    @Test func aSlowWebSocketReaderIsDroppedWithoutHoldingAnyone() throws {
        let server = try TestServer { $0.sendQueueBytes = 262_144 }
        let sender = try server.device("sender")
        let reader = try server.device("reader")
        let room = id(try sender.ok("ROOM CREATE Flat")["room"])
        try sender.add("reader", to: room)
        _ = try reader.drain()
        let code = try sender.ok("ROOM INVITE \(room)")["code"] as? String ?? ""
        let sleeper = try WebClient(port: server.port)
        #expect(try sleeper.upgrade().status == 101)
        #expect(try sleeper.json("REGISTER sleeper \"\(defaultPassword)\"")["type"] as? String == "ok")
        #expect(try sleeper.json("ROOM JOIN \(code)")["type"] as? String == "ok")
        _ = try reader.drain()

        let count = 3000
        // The reader keeps up on its own thread; the sleeper reads nothing until the end.
        let counter = MessageCounter(reader, until: count)
        try sender.flood(room, count: count)
        #expect(counter.wait(seconds: 60))
        #expect(counter.count == count)
        // The sleeper was cut off: its frames end in a hang-up long before all the messages.
        var messages = 0
        while let frame = try sleeper.readFrame(timeout: 20) {
            if frame.opcode == 1 && frame.text.contains("\"message\"") { messages += 1 }
        }
        #expect(messages < count)
    }

    /// Python's `websockets` (Debian's python3-websockets): a real client library logs in
    /// over wss, hears a line member's message and leaves with a clean close.
    /// Skipped where the library is missing, except under CI (which installs it).
    @Test(.enabled(if: hasPythonWebSockets || ProcessInfo.processInfo.environment["CI"] == "true",
                   "python3-websockets is not installed (apt-get install python3-websockets)"))
    func aRealWebSocketClientLibrary() throws {
        let python = "/usr/bin/python3"
        guard Self.hasPythonWebSockets else {
            Issue.record("CI=true but python3-websockets is missing: .ci/run should have installed it")
            return
        }
        let server = try TestServer()
        let line = try server.device("lena")
        let room = id(try line.ok("ROOM CREATE Flat")["room"])
        let code = try line.ok("ROOM INVITE \(room)")["code"] as? String ?? ""
        let script = """
            import asyncio, json, ssl, sys, websockets
            async def main():
                context = ssl.create_default_context()
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
                async with websockets.connect(sys.argv[1], ssl=context, origin="https://localhost:" + sys.argv[2]) as ws:
                    async def ask(line):
                        await ws.send(line)
                        while True:
                            reply = json.loads(await ws.recv())
                            if reply["type"] != "event":
                                return reply
                    assert (await ask('REGISTER py "\(WebDoorTests.password)"'))["type"] == "ok"
                    assert (await ask("ROOM JOIN " + sys.argv[3]))["type"] == "ok"
                    print("joined", flush=True)
                    while True:
                        event = json.loads(await asyncio.wait_for(ws.recv(), 20))
                        if event.get("event") == "message":
                            print("heard", event["message"]["text"], flush=True)
                            break
            asyncio.run(main())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, "wss://127.0.0.1:\(server.port)/ws", "\(server.port)", code]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Once it has joined, the line member speaks.
        let handle = output.fileHandleForReading
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        while !seen.contains("joined"), let chunk = handle.availableData(within: deadline.timeIntervalSinceNow), !chunk.isEmpty {
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen.contains("joined"), "\(seen)")
        #expect(try line.ok("SAY \(room) hello python")["type"] as? String == "ok")
        let ended = process.waitUntilExit(within: 60)
        let rest = handle.readToEnd(within: 10)
        seen += String(decoding: rest.data, as: UTF8.self)
        try #require(ended, "the Python client did not end within 60 s and was killed: \(seen)")
        #expect(rest.ended, "the Python client's output did not end within 10 s of the client: \(seen)")
        #expect(process.terminationStatus == 0, "\(seen)")
        #expect(seen.contains("heard hello python"), "\(seen)")
    }

    /// The manifest's icons are PNG files zlib (through Python) inflates to the image the
    /// manifest promises: every chunk's CRC right, the size named, green with a white mark.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                   || ProcessInfo.processInfo.environment["CI"] == "true", "python3 is not installed"),
          arguments: [192, 512])
    func theIconsArePNGsARealDecoderReads(size: Int) throws {
        let server = try TestServer()
        let web = try WebClient(port: server.port)
        let manifest = try JSONSerialization.jsonObject(with: Data(try web.request("GET", "/manifest.webmanifest").body)) as? [String: Any]
        let icons = manifest?["icons"] as? [[String: Any]] ?? []
        #expect(icons.contains { $0["sizes"] as? String == "\(size)x\(size)" && $0["src"] as? String == "/icon-\(size).png" })
        #expect(icons.contains { $0["purpose"] as? String == "maskable" })
        let icon = try web.request("GET", "/icon-\(size).png")
        #expect(icon.status == 200 && icon.headers["content-type"] == "image/png")
        let directory = try TemporaryDirectory()
        let file = directory.path + "/icon.png"
        try Data(icon.body).write(to: URL(fileURLWithPath: file))
        let check = """
            import struct, sys, zlib
            data = open(sys.argv[1], "rb").read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
            at, idat, size = 8, b"", None
            while at < len(data):
                length, kind = struct.unpack(">I4s", data[at:at + 8])
                body = data[at + 8:at + 8 + length]
                assert zlib.crc32(kind + body) == struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0], kind
                if kind == b"IHDR": size = struct.unpack(">II", body[:8])
                if kind == b"IDAT": idat += body
                at += 12 + length
            raw = zlib.decompress(idat)
            width, height = size
            assert len(raw) == height * (width * 4 + 1)
            pixel = lambda x, y: raw[y * (width * 4 + 1) + 1 + x * 4:y * (width * 4 + 1) + 5 + x * 4]
            assert pixel(2, 2) == bytes([0x2f, 0x6f, 0x4f, 0xff]), pixel(2, 2)
            assert pixel(int(width * 0.44), int(height * 0.68)) == bytes([255, 255, 255, 255])
            print(width, height)
            """
        let result = try TLSProfileTests.run(["/usr/bin/python3", "-c", check, file])
        #expect(result.status == 0 && result.output == "\(size) \(size)\n", "\(result.output)")
    }

    /// curl offers h2 and http/1.1 by ALPN and gets HTTP/1.1.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
                   || ProcessInfo.processInfo.environment["CI"] == "true", "curl is not installed (apt-get install curl)"))
    func curlSpeaksHTTP11() throws {
        let server = try TestServer()
        let result = try TLSProfileTests.run(["/usr/bin/curl", "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                                              "https://127.0.0.1:\(server.port)/healthz"])
        #expect(result.output == "1.1 200", "\(result)")
    }

    static let hasPythonWebSockets = (try? TLSProfileTests.run(["/usr/bin/python3", "-c", "import websockets"]).status) == 0
}

import Foundation
import Testing
@testable import chorus_bench

/// `--transport websocket`: the client's frames, and the tool run through a real chorusd's
/// web door with every member on WebSocket.
@Suite(.timeLimit(.minutes(10))) struct WebSocketTransportTests {
    // MARK: The codec

    /// A codec past its upgrade, and the 101 that got it there.
    private static func upgradedCodec() -> WebSocketClientCodec {
        var codec = WebSocketClientCodec(host: "127.0.0.1", port: 7667)
        let request = String(decoding: codec.upgradeRequest, as: UTF8.self)
        let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }!.dropFirst(19)
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketClientCodec.acceptValue(forKey: String(key)))\r\n\r\n"
        let feedback = Array(response.utf8).withUnsafeBytes { codec.feed($0) { _ in Issue.record("a message before any frame") } }
        #expect(feedback.failure == nil)
        return codec
    }

    /// A server's frame: unmasked.
    private static func serverFrame(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return frame + payload
    }

    private static func feed(_ codec: inout WebSocketClientCodec, _ bytes: [UInt8], into messages: inout [String]) -> WebSocketClientCodec.Feedback {
        bytes.withUnsafeBytes { raw in codec.feed(raw) { messages.append(String(decoding: $0, as: UTF8.self)) } }
    }

    @Test func theUpgradeRequestAsksForVersion13WithAFreshKey() {
        let request = String(decoding: WebSocketClientCodec(host: "127.0.0.1", port: 7667).upgradeRequest, as: UTF8.self)
        #expect(request.hasPrefix("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:7667\r\n"))
        #expect(request.contains("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"))
        #expect(request.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(request.hasSuffix("\r\n\r\n"))
        let key = request.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }?.dropFirst(19)
        #expect(key.flatMap { Data(base64Encoded: String($0)) }?.count == 16)
        // RFC 6455 §1.3's own example.
        #expect(WebSocketClientCodec.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func aRefusedOrWrongUpgradeIsAFailure() {
        var refused = WebSocketClientCodec(host: "127.0.0.1", port: 7667)
        let failure = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8).withUnsafeBytes { refused.feed($0) { _ in } }.failure
        #expect(failure == "upgrade refused: HTTP/1.1 403 Forbidden")
        var wrong = WebSocketClientCodec(host: "127.0.0.1", port: 7667)
        let response = "HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: s3pPLMBXiNbJQrM5ZD5xZmYfXok=\r\n\r\n"
        #expect(Array(response.utf8).withUnsafeBytes { wrong.feed($0) { _ in } }.failure?.hasPrefix("101 with a wrong") == true)
    }

    @Test func requestsAreMaskedTextFramesThatUnmaskToTheLine() {
        var codec = WebSocketClientCodec(host: "127.0.0.1", port: 7667)
        for length in [5, 125, 126, 300] {
            let line = Array(repeating: UInt8(ascii: "a"), count: length)
            let frame = codec.textFrame(line)
            #expect(frame[0] == 0x81)
            #expect(frame[1] & 0x80 == 0x80)
            let headerLength = length < 126 ? 2 : 4
            #expect(frame.count == headerLength + 4 + length)
            if length >= 126 { #expect(frame[1] & 0x7F == 126 && Int(frame[2]) << 8 | Int(frame[3]) == length) }
            let key = Array(frame[headerLength..<(headerLength + 4)])
            let unmasked = frame[(headerLength + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
            #expect(unmasked == line)
        }
    }

    /// However the reads cut the frames, each text frame is one line, in order.
    @Test func framesCutAtEveryByteGiveTheSameMessages() {
        let texts = [#"{"type":"ok","tag":1}"#, String(repeating: "x", count: 200), #"{"type":"event"}"#]
        let stream = texts.flatMap { Self.serverFrame(0x1, Array($0.utf8)) }
        for cut in 0...stream.count {
            var codec = Self.upgradedCodec()
            var messages: [String] = []
            #expect(Self.feed(&codec, Array(stream[..<cut]), into: &messages).failure == nil)
            #expect(Self.feed(&codec, Array(stream[cut...]), into: &messages).failure == nil)
            #expect(messages == texts, "cut at \(cut)")
        }
        var codec = Self.upgradedCodec()
        var messages: [String] = []
        for byte in stream { _ = Self.feed(&codec, [byte], into: &messages) }
        #expect(messages == texts)
    }

    @Test func aPingIsAnsweredAndACloseOrAMaskedFrameEndsTheSession() {
        var codec = Self.upgradedCodec()
        var messages: [String] = []
        let pong = Self.feed(&codec, Self.serverFrame(0x9, [1, 2, 3]), into: &messages).reply
        #expect(pong.count == 2 + 4 + 3 && pong[0] == 0x8A && pong[1] == 0x83)
        #expect(zip(pong[6...], pong[2..<6]).map { $0 ^ $1 } == [1, 2, 3])
        let close = Self.feed(&codec, Self.serverFrame(0x8, [0x03, 0xE9] + Array("going away".utf8)), into: &messages)
        #expect(close.failure == "the server closed the WebSocket (code 1001): going away")
        var other = Self.upgradedCodec()
        #expect(Self.feed(&other, [0x81, 0x81, 0, 0, 0, 0, 0x41], into: &messages).failure == "a masked frame from the server")
        #expect(messages.isEmpty)
    }

    @Test func textModeAndHandshakeAreNotWebSocketWorkloads() throws {
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--insecure", "--transport", "websocket", "--mode", "text"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["handshake", "--insecure", "--transport", "websocket"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--insecure", "--transport", "http"]) }
        #expect(try BenchOptions.parse(["fanout", "--insecure", "--transport", "websocket"]).transport == .websocket)
        #expect(try BenchOptions.parse(["fanout", "--insecure"]).transport == .line)
    }

    // MARK: Against chorusd

    /// Every member on WebSocket: set-up, the SAYs and every event go through frames, and
    /// every message reaches every other member exactly once. 300-byte texts make frames
    /// both ways longer than 125 bytes.
    @Test func fanOutWithEveryMemberOnWebSocketLosesNothing() throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "fanout", "--port", String(server.port), "--ca", server.certificate, "--transport", "websocket",
            "--members", "10", "--senders", "4", "--messages", "25", "--window", "4", "--payload", "300",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = run.json
        #expect(json["ok"] as? Bool == true)
        #expect(json["transport"] as? String == "websocket")
        #expect(json["deliveries"] as? Int == 4 * 25 * 9)
        #expect(json["lost"] as? Int == 0)
        #expect(json["duplicates"] as? Int == 0)
        #expect(json["messages_acked"] as? Int == 100)
        #expect(run.stderr.contains("WebSocket sessions"))
    }

    /// The JSON-mode workloads other than fan-out run over WebSocket too.
    @Test(arguments: [
        ["writes", "--clients", "3", "--seconds", "0.3"],
        ["connections", "--sessions", "6", "--accounts", "3", "--settle", "0"],
        ["login", "--loops", "2", "--seconds", "0.3"],
        ["tasks", "--tasks", "20", "--parents", "2", "--subtasks", "3", "--clients", "2", "--seconds", "0.3"],
    ])
    func otherWorkloadsRunOverWebSocket(workload: [String]) throws {
        let server = try BenchServer()
        let run = try BenchRun.run(workload + ["--port", String(server.port), "--ca", server.certificate, "--transport", "websocket"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["ok"] as? Bool == true)
        #expect(run.json["transport"] as? String == "websocket")
    }
}

/// `--healthz MS`: a keep-alive HTTPS connection polls `GET /healthz` while fan-out runs.
@Suite(.timeLimit(.minutes(10))) struct HealthzProbeRunTests {
    @Test(arguments: ["line", "websocket"])
    func theProbeIsAnsweredWhileFanOutRuns(transport: String) throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "fanout", "--port", String(server.port), "--ca", server.certificate, "--transport", transport,
            "--members", "6", "--senders", "2", "--messages", "20", "--healthz", "1",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = run.json
        #expect(json["ok"] as? Bool == true)
        #expect(json["lost"] as? Int == 0)
        // The first request goes out as the phase starts, and stopping waits for its answer.
        let answered = try #require(json["healthz_answered"] as? Int, "\(run.stdout)")
        #expect(answered >= 1)
        #expect(json["healthz_not_ok"] as? Int == 0)
        #expect((json["healthz_latency_ms"] as? [String: Any])?["count"] as? Int == answered)
        #expect(run.stderr.contains("GET /healthz: \(answered) answered, 0 not 200"))
    }
}

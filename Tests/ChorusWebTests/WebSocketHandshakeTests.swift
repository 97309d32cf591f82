import ChorusWeb
import Testing

@Suite("WebSocketHandshake")
struct WebSocketHandshakeTests {
    private let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    private func upgrade(_ fields: [String], method: String = "GET", version: String = "HTTP/1.1") throws -> HTTPRequestHead {
        let head = "\(method) /ws \(version)\r\nHost: server.example.com\r\n" + fields.map { $0 + "\r\n" }.joined() + "\r\n"
        return try #require(onlyRequest(head)).head
    }

    private var goodFields: [String] {
        ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: \(sampleKey)", "Sec-WebSocket-Version: 13"]
    }

    /// RFC 6455 §1.3's sample key gives its sample accept value.
    @Test func sampleAcceptValue() {
        #expect(WebSocketHandshake.acceptValue(forKey: sampleKey) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    /// The RFC's sample request is accepted, as are tokens in any case among others.
    @Test func acceptsUpgrades() throws {
        #expect(try WebSocketHandshake.accept(upgrade(goodFields)) == .success("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        let browser = try upgrade(["Connection: keep-alive, Upgrade", "Upgrade: WebSocket", "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: \(sampleKey)"])
        #expect(WebSocketHandshake.accept(browser) == .success("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
    }

    /// Not GET, not HTTP/1.1, no Upgrade or Connection token: 400.
    @Test func badRequests() throws {
        #expect(try status(upgrade(goodFields, method: "POST")) == 400)
        #expect(try status(upgrade(goodFields, version: "HTTP/1.0")) == 400)
        #expect(try status(upgrade(goodFields.filter { !$0.hasPrefix("Upgrade") })) == 400)
        #expect(try status(upgrade(goodFields.map { $0.hasPrefix("Upgrade") ? "Upgrade: h2c" : $0 })) == 400)
        #expect(try status(upgrade(goodFields.map { $0.hasPrefix("Connection") ? "Connection: keep-alive" : $0 })) == 400)
    }

    /// The key must be one base64 string of 16 bytes.
    @Test func badKeys() throws {
        for key in ["", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZR==", "dGhlIHNhbXBsZSBub25j", "dGhlIHNhbXBsZSBub25jZSE=", "dGhlIHNhbXBsZSBub25jZQ=!"] {
            let fields = goodFields.map { $0.hasPrefix("Sec-WebSocket-Key") ? "Sec-WebSocket-Key: \(key)" : $0 }
            #expect(try status(upgrade(fields)) == 400, "\(key)")
        }
        #expect(try status(upgrade(goodFields.filter { !$0.hasPrefix("Sec-WebSocket-Key") })) == 400)
        #expect(try status(upgrade(goodFields + ["Sec-WebSocket-Key: \(sampleKey)"])) == 400)
    }

    /// A version other than 13, or none, is 426, and the refusal names version 13.
    @Test func wrongVersion() throws {
        for fields in [goodFields.map { $0.hasPrefix("Sec-WebSocket-Version") ? "Sec-WebSocket-Version: 8" : $0 },
                       goodFields.filter { !$0.hasPrefix("Sec-WebSocket-Version") },
                       goodFields + ["Sec-WebSocket-Version: 8"]] {
            guard case .failure(let refusal) = try WebSocketHandshake.accept(upgrade(fields)) else {
                Issue.record("accepted \(fields)")
                continue
            }
            #expect(refusal.status == 426)
            #expect(WebSocketHandshake.refusalHeaders(for: refusal).map { "\($0.name): \($0.value)" } == ["Sec-WebSocket-Version: 13"])
        }
        #expect(WebSocketHandshake.refusalHeaders(for: HTTPRefusal(status: 400, reason: "x")).isEmpty)
    }

    private func status(_ head: HTTPRequestHead) -> Int? {
        if case .failure(let refusal) = WebSocketHandshake.accept(head) { return refusal.status }
        return nil
    }
}

import ChorusAddresses
import ChorusTestSupport
import ChorusOutbound
import Foundation
import Testing

/// The blocking client against a real HTTPS server on loopback: what arrives, whom it
/// trusts, and the request-forgery guard on the address it connects to.
@Suite struct OutboundClientTests {
    static let loopback = AddressPolicy(allowing: [try! AddressBlock(parsing: "127.0.0.0/8")])

    static func client(trusting server: ScriptedHTTPSServer, policy: AddressPolicy = loopback, totalTimeoutMilliseconds: Int = 10_000) throws -> OutboundClient {
        try OutboundClient(settings: OutboundClientSettings(policy: policy, caFile: server.certificatePath,
                                                            connectTimeoutMilliseconds: 5_000, totalTimeoutMilliseconds: totalTimeoutMilliseconds))
    }

    @Test func aPostArrivesWithItsHeadersAndBody() throws {
        let server = try ScriptedHTTPSServer { _, _ in
            .respond(status: 201, headers: [("Location", "https://push.example/m/1"), ("Replay-Nonce", "abc"), ("Link", "<a>;rel=up"), ("Link", "<b>;rel=index")], body: Array("made".utf8))
        }
        let client = try Self.client(trusting: server)
        let body: [UInt8] = [0, 1, 2, 0xff, 13, 10, 0]
        let response = try client.perform(OutboundRequest(
            url: server.url("/push/SECRET?token=1"), headers: [("TTL", "60"), ("Content-Encoding", "aes128gcm"), ("Urgency", "high")], body: body))
        #expect(response.status == 201)
        #expect(response.body == Array("made".utf8))
        #expect(response.header("location") == "https://push.example/m/1")
        #expect(response.header("Replay-Nonce") == "abc")
        #expect(response.headers(named: "link") == ["<a>;rel=up", "<b>;rel=index"])
        let received = try #require(server.received.first)
        #expect(received.method == "POST")
        #expect(received.target == "/push/SECRET?token=1")
        #expect(received.header("TTL") == "60")
        #expect(received.header("Content-Encoding") == "aes128gcm")
        #expect(received.header("Urgency") == "high")
        #expect(received.header("Expect") == nil)
        #expect(received.body == body)
    }

    @Test func aGetAndKeepAlive() throws {
        let server = try ScriptedHTTPSServer { request, index in
            .respond(status: 200, body: Array("\(request.method) \(index)".utf8))
        }
        let client = try Self.client(trusting: server)
        let first = try client.perform(OutboundRequest(method: "GET", url: server.url("/directory")))
        let second = try client.perform(OutboundRequest(method: "POST", url: server.url("/new-nonce"), body: Array("{}".utf8)))
        #expect(String(decoding: first.body, as: UTF8.self) == "GET 0")
        #expect(String(decoding: second.body, as: UTF8.self) == "POST 1")
    }

    @Test func anUntrustedCertificateFails() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let other = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let client = try Self.client(trusting: other)
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/x"))) }
        #expect(error.kind == .untrusted)
        #expect(server.received.isEmpty)
        // And with the system's trust store, a self-signed certificate fails just the same.
        let systemTrust = try OutboundClient(settings: OutboundClientSettings(policy: Self.loopback))
        let again = try #require(throws: OutboundError.self) { try systemTrust.perform(OutboundRequest(url: server.url("/x"))) }
        #expect(again.kind == .untrusted)
    }

    @Test func loopbackIsRefusedWithoutAnAllowEntry() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let client = try Self.client(trusting: server, policy: AddressPolicy())
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/secret-path?key=1"))) }
        #expect(error.kind == .addressRefused)
        #expect(error.description.contains("127.0.0.1"))
        #expect(error.origin == "https://127.0.0.1:\(server.port)")
        #expect(!error.description.contains("secret-path"))
        #expect(!error.description.contains("key=1"))
        #expect(server.received.isEmpty)
    }

    /// "localhost" never reaches a check of the URL's text as an address: it is refused by
    /// the socket callback, after resolution, on each address it resolved to.
    @Test func aNameThatResolvesToLoopbackIsRefusedAfterResolution() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let client = try Self.client(trusting: server, policy: AddressPolicy())
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/p", host: "localhost"))) }
        #expect(error.kind == .addressRefused)
        #expect(error.origin == "https://localhost:\(server.port)")
        #expect(error.detail.contains("127.0.0.1") || error.detail.contains("::1"))
        #expect(server.received.isEmpty)
        // With the allow entry the same name is reached (::1, outside it, is skipped).
        let allowed = try Self.client(trusting: server)
        #expect(try allowed.perform(OutboundRequest(url: server.url("/p", host: "localhost"))).status == 201)
        #expect(server.received.count == 1)
    }

    @Test func plainHTTPIsRefusedBeforeAnythingIsSent() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let client = try Self.client(trusting: server)
        for url in ["http://127.0.0.1:\(server.port)/p", "HTTP://127.0.0.1:\(server.port)/p", "ftp://127.0.0.1:\(server.port)/p"] {
            let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: url)) }
            #expect(error.kind == .schemeRefused, "\(url)")
        }
        let bad = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: "not a url")) }
        #expect(bad.kind == .invalidRequest)
        #expect(server.received.isEmpty)
    }

    @Test func aRedirectIsNotFollowed() throws {
        let server = try ScriptedHTTPSServer { _, _ in
            .respond(status: 302, headers: [("Location", "https://127.0.0.1:1/elsewhere")])
        }
        let client = try Self.client(trusting: server)
        let response = try client.perform(OutboundRequest(url: server.url("/first")))
        #expect(response.status == 302)
        #expect(response.header("Location") == "https://127.0.0.1:1/elsewhere")
        #expect(server.received.count == 1)
    }

    @Test func aHeaderCannotSmuggleALine() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let client = try Self.client(trusting: server)
        let error = try #require(throws: OutboundError.self) {
            try client.perform(OutboundRequest(url: server.url("/p"), headers: [("Topic", "a\r\nX-Evil: 1")]))
        }
        #expect(error.kind == .invalidRequest)
        let name = try #require(throws: OutboundError.self) {
            try client.perform(OutboundRequest(url: server.url("/p"), headers: [("Bad Name", "1")]))
        }
        #expect(name.kind == .invalidRequest)
        #expect(server.received.isEmpty)
    }

    @Test func anOversizedBodyIsCut() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 200, body: [UInt8](repeating: 65, count: 70_000)) }
        let client = try Self.client(trusting: server)
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/big"))) }
        #expect(error.kind == .responseTooLarge)
    }

    @Test func aServerThatNeverAnswersTimesOut() throws {
        let server = try ScriptedHTTPSServer { _, _ in .silence }
        let client = try Self.client(trusting: server, totalTimeoutMilliseconds: 1_000)
        let started = Date()
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/p"))) }
        #expect(error.kind == .timedOut)
        #expect(Date().timeIntervalSince(started) >= 1)
    }

    @Test func aTrickleIsCutByTheLowSpeedLimit() throws {
        let server = try ScriptedHTTPSServer { _, _ in .trickle(bytes: 1_000, interval: 0.5) }
        let client = try OutboundClient(settings: OutboundClientSettings(
            policy: Self.loopback, caFile: server.certificatePath, totalTimeoutMilliseconds: 60_000,
            lowSpeedBytesPerSecond: 100, lowSpeedSeconds: 1))
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/p"))) }
        #expect(error.kind == .timedOut)
    }

    @Test func aConnectionClosedMidResponseIsAConnectionFailure() throws {
        let server = try ScriptedHTTPSServer { _, _ in .closeMidResponse }
        let client = try Self.client(trusting: server)
        let error = try #require(throws: OutboundError.self) { try client.perform(OutboundRequest(url: server.url("/p"))) }
        #expect(error.kind == .connection)
        #expect(error.isTransient)
    }
}

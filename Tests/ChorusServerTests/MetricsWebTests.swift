@testable import ChorusServer
import ChorusNet
import ChorusTestSupport
import Foundation
import Testing

/// `/metrics` and `/healthz` end to end: real TLS, real HTTP, the web door's answers.
@Suite(.timeLimit(.minutes(10))) struct MetricsWebTests {
    /// Asks `check` again until it holds or `seconds` pass; whether it held.
    static func eventually(seconds: Double = 30, _ check: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try check() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try check()
    }

    /// GET `path` on a connection of its own.
    static func get(_ path: String, port: Int) throws -> WebClient.Response {
        try WebClient(port: port).request("GET", path, close: true)
    }

    @Test func metricsFromLoopbackCountWhatHappenedAndPassPromtool() throws {
        let server = try TestServer()
        let ann = try server.user("ann")
        let bob = try server.user("bob")
        #expect(try ann.call("ROOM CREATE flat").last?.hasPrefix("OK") == true)
        let invite = try #require(try ann.call("ROOM INVITE flat").last?.split(separator: " ").last.map(String.init))
        _ = try bob.call("ROOM JOIN \(invite)")
        for line in ["SAY flat one", "SAY flat two", "SAY flat three"] {
            #expect(try ann.call(line).last?.hasPrefix("OK") == true, "\(line)")
        }
        // A WebSocket session counts as one; the HTTP connections asking for /metrics do not.
        let web = try WebClient(port: server.port)
        #expect(try web.upgrade().status == 101)
        #expect(try web.json("PING")["type"] as? String == "ok")

        let response = try Self.get("/metrics", port: server.port)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = response.text
        #expect(MetricsTests.value(text, #"chorus_sessions_open{transport="line"}"#) == 2)
        #expect(MetricsTests.value(text, #"chorus_sessions_open{transport="websocket"}"#) == 1)
        #expect(MetricsTests.value(text, #"chorus_commands_total{verb="SAY",code="200"}"#) == 3)
        #expect(MetricsTests.value(text, #"chorus_commands_total{verb="PING",code="200"}"#) == 1, "the WebSocket's PING")
        #expect(MetricsTests.value(text, #"chorus_commands_total{verb="REGISTER",code="200"}"#) == 2)
        #expect((MetricsTests.value(text, "chorus_fanout_deliveries_total") ?? 0) >= 3, "bob heard ann's three lines")
        #expect((MetricsTests.value(text, "chorus_events_total") ?? 0) >= 4)
        #expect((MetricsTests.value(text, "chorus_store_commit_seconds_count") ?? 0) >= 1)
        if let said = try MetricsTests.promtoolSays(text) {
            #expect(said.isEmpty, "promtool check metrics: \(said)")
        }

        // The WebSocket leaves: its gauge goes back to 0.
        web.connection.close()
        #expect(try Self.eventually {
            MetricsTests.value(try Self.get("/metrics", port: server.port).text, #"chorus_sessions_open{transport="websocket"}"#) == 0
        })
    }

    @Test func metricsFromAnAddressOutsideMetricsAllowIs404() throws {
        // Loopback is not in the range: this test's own address is refused.
        let server = try TestServer { $0.metricsAllow = [AddressRange("10.0.0.0/8")!] }
        let refused = try Self.get("/metrics", port: server.port)
        #expect(refused.status == 404)
        #expect(!refused.text.contains("chorus_"))
        #expect(try Self.get("/healthz", port: server.port).status == 200)
    }

    /// `chorusd --metrics-allow`: a range that leaves loopback out refuses it (404), the
    /// default lets it in, and a value that is no range is one line and status 2.
    @Test func theMetricsAllowFlag() throws {
        let directory = try TemporaryDirectory()
        let bad = try ProcessTests.run(["--metrics-allow", "everyone"], in: directory.path)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--metrics-allow takes an address or CIDR range like 10.0.0.0/8, not everyone"), "\(bad.stderr)")
        for (flags, status) in [(["--metrics-allow", "192.0.2.0/24", "--metrics-allow", "10.0.0.0/8"], 404), ([], 200)] {
            let daemon = try ProcessTests.Daemon(["--port", "0", "--scrypt-log-n", "10"] + flags, in: directory.path)
            #expect(try daemon.waitUntilListening())
            #expect(try Self.get("/metrics", port: daemon.port).status == status, "\(flags)")
            daemon.process.terminate()
            _ = daemon.finish()
        }
    }

    /// A node whose PostgreSQL goes away turns 503 within a few seconds with no client
    /// command to notice it (the probe job), and 200 again once the database is back; its
    /// metrics carry its node name.
    @Test(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason))
    func healthzIs503WhilePostgreSQLIsDown() throws {
        let database = try ThrowawayPostgres()
        let node = try ChorusNode.start(postgres: try database.makeDatabase(), name: "alpha")
        defer { _ = node.stop() }
        #expect(try Self.get("/healthz", port: node.port).status == 200)
        let metrics = try Self.get("/metrics", port: node.port).text
        #expect(metrics.contains(#"chorus_build_info{node="alpha",version="0.1"} 1"#))
        #expect(metrics.split(separator: "\n").filter { !$0.hasPrefix("#") }.allSatisfy { $0.contains(#"node="alpha""#) })
        if let said = try MetricsTests.promtoolSays(metrics) {
            #expect(said.isEmpty, "promtool check metrics: \(said)")
        }

        database.stop(mode: "fast")
        #expect(try Self.eventually { try Self.get("/healthz", port: node.port).status == 503 }, "503 while PostgreSQL is down")
        let down = try Self.get("/metrics", port: node.port).text
        #expect(MetricsTests.value(down, #"chorus_store_up{node="alpha"}"#) == 0)
        #expect((MetricsTests.value(down, #"chorus_store_errors_total{node="alpha",kind="unavailable"}"#) ?? 0) >= 1)

        try database.start()
        #expect(try Self.eventually { try Self.get("/healthz", port: node.port).status == 200 }, "200 once it is back")
    }
}

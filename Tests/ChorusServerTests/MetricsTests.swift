@testable import ChorusServer
import ChorusSQLite
import ChorusTestSupport
import Foundation
import Testing

/// What `/metrics` and `/healthz` answer on a real server in this process, asked of its
/// first hub as the web door asks (`Server.metricsText`, `Server.isHealthy`), with the
/// text checked by Prometheus's own `promtool check metrics`.
@Suite(.timeLimit(.minutes(10))) struct MetricsTests {
    static var promtool: String? {
        ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `promtool check metrics` on `text`: nothing said and status 0, or why not. Where
    /// promtool is missing this is skipped, except under CI (.ci/run installs the
    /// prometheus package), where it fails.
    static func promtoolSays(_ text: String) throws -> String? {
        guard let tool = promtool else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("CI=true but promtool is missing: .ci/run should have installed the prometheus package")
            }
            return nil
        }
        let (status, said) = try ToolRun.run([tool, "check", "metrics"], input: text)
        return status == 0 ? said : "status \(status): \(said)"
    }

    /// The value of the series `name{labels}` (labels as written, in order), nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func countsMoveWithCommandsAndPromtoolAcceptsTheText() throws {
        let server = try TestServer()
        let running = try #require(server.server)
        let before = running.metricsText()
        #expect(Self.value(before, #"chorus_sessions_open{transport="line"}"#) == 0)
        #expect(Self.value(before, #"chorus_build_info{version="0.1"}"#) == 1)

        let ann = try server.user("ann")
        let bob = try server.user("bob")
        #expect(try ann.call("ROOM CREATE flat").last?.hasPrefix("OK") == true)
        let invite = try #require(try ann.call("ROOM INVITE flat").last?.split(separator: " ").last.map(String.init))
        _ = try bob.call("ROOM JOIN \(invite)")
        for line in ["SAY flat hello", "SAY flat again", "TASK ADD flat dishes"] {
            #expect(try ann.call(line).last?.hasPrefix("OK") == true, "\(line)")
        }
        #expect(try ann.call("TASK SHOW 999999").last?.hasPrefix("ERR 404") == true)
        _ = try ann.call("NOSUCHVERB")
        let stranger = try server.client()
        #expect(try stranger.call("LOGIN ann wrong").last?.hasPrefix("ERR 401") == true)
        #expect(try stranger.call("LOGIN ann \"correct horse battery staple\"").last?.hasPrefix("OK") == true)
        _ = try stranger.call("PING")

        let text = running.metricsText()
        #expect(Self.value(text, #"chorus_sessions_open{transport="line"}"#) == 3)
        #expect(Self.value(text, #"chorus_sessions_open{transport="websocket"}"#) == 0)
        #expect(Self.value(text, #"chorus_commands_total{verb="SAY",code="200"}"#) == 2)
        #expect(Self.value(text, #"chorus_commands_total{verb="TASK ADD",code="200"}"#) == 1)
        #expect(Self.value(text, #"chorus_commands_total{verb="TASK SHOW",code="404"}"#) == 1)
        #expect(Self.value(text, #"chorus_commands_total{verb="REGISTER",code="200"}"#) == 2)
        #expect(Self.value(text, #"chorus_commands_total{verb="LOGIN",code="401"}"#) == 1)
        #expect(Self.value(text, #"chorus_commands_total{verb="PING",code="200"}"#) == 1)
        #expect((Self.value(text, #"chorus_commands_total{verb="other",code="400"}"#) ?? 0) >= 1, "the unknown verb")
        #expect(Self.value(text, #"chorus_logins_total{result="ok",method="password"}"#) == 1)
        #expect(Self.value(text, #"chorus_logins_total{result="failed",method="password"}"#) == 1)
        #expect(Self.value(text, #"chorus_logins_total{result="throttled",method="token"}"#) == 0)
        // Bob joined, then hears ann's two lines and her task: at least those three writes.
        #expect((Self.value(text, "chorus_events_total") ?? 0) >= 4)
        #expect((Self.value(text, "chorus_fanout_deliveries_total") ?? 0) >= 3)
        #expect((Self.value(text, #"chorus_store_batch_seconds_bucket{le="+Inf"}"#) ?? 0) >= 1)
        #expect(Self.value(text, #"chorus_store_batch_seconds_count"#) == Self.value(text, #"chorus_store_batch_seconds_bucket{le="+Inf"}"#))
        #expect((Self.value(text, "chorus_store_commit_seconds_count") ?? 0) >= 1)
        #expect(Self.value(text, #"chorus_store_errors_total{kind="unavailable"}"#) == 0)
        #expect(Self.value(text, #"chorus_limit_closes_total{limit="sendq"}"#) == 0)
        for name in ["chorus_push_sent_total", "chorus_push_failed_total", "chorus_mail_sent_total", "chorus_mail_failed_total"] {
            #expect(Self.value(text, name) == 0, "\(name)")
        }
        #expect(Self.value(text, "chorus_store_up") == 1)
        #expect(!text.contains("node="), "one node: no node label")
        if let said = try Self.promtoolSays(text) {
            #expect(said.isEmpty, "promtool check metrics: \(said)")
        }

        // A session that leaves stops counting.
        stranger.connection.close()
        #expect(try eventually { Self.value(running.metricsText(), #"chorus_sessions_open{transport="line"}"#) == 2 })
    }

    @Test func aLimitCloseIsOneCountForAdminStatsAndMetrics() throws {
        let server = try TestServer { $0.handshakeTimeout = 1 }
        let running = try #require(server.server)
        // Says nothing after its handshake: the handshake timeout closes it.
        let quiet = try server.client()
        #expect(try eventually { Self.value(running.metricsText(), #"chorus_limit_closes_total{limit="handshake_timeout"}"#) == 1 })
        _ = quiet
        let root = try server.device("root")
        let database = try Database(path: server.configuration.databasePath)
        #expect(try database.setAdmin(name: "root", true))
        database.close()
        let closes = try root.ok("ADMIN STATS")["closed_by_limit"] as? [String: Any]
        #expect(closes?["handshake_timeout"] as? Int == 1)
    }

    @Test func healthIsTrueWhileTheStoreAnswersAndFalseWhileItHangs() throws {
        let box = HeldStoreBox()
        let server = try TestServer(store: HeldStore.opener(into: box))
        let running = try #require(server.server)
        #expect(running.isHealthy())
        box.store.holdDatabase()
        // Once the last word from the store is older than `StoreHealth.fresh`, the probe
        // job waits behind the held one and the answer is false.
        #expect(try eventually(seconds: 30) { !running.isHealthy() })
        box.store.releaseDatabase()
        #expect(try eventually(seconds: 30) { running.isHealthy() })
    }

    @Test func healthIsFalseOnceShutdownBegins() throws {
        let server = try TestServer()
        let running = try #require(server.server)
        #expect(running.isHealthy())
        let hub = running.first
        let answer = AnswerBox()
        let done = DispatchSemaphore(value: 0)
        hub.loop.execute {
            hub.value.sessions.refusesNew = true
            hub.value.isHealthy { healthy in
                answer.set(healthy)
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "the loop did not run the health check")
        #expect(answer.get() == false)
    }

    @Test func onlyAllowedAddressesMayReadMetrics() throws {
        let server = try TestServer { $0.metricsAllow = [AddressRange("10.0.0.0/8")!, AddressRange("::1/128")!] }
        let hub = try #require(server.server).first
        let answers = AnswerListBox()
        let done = DispatchSemaphore(value: 0)
        hub.loop.execute {
            answers.set(["10.1.2.3", "127.0.0.1", "::1", "::ffff:10.0.0.9", "192.168.1.1", "not an address"]
                .map { hub.value.mayReadMetrics(from: $0) })
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success, "the loop did not run the metrics check")
        #expect(answers.get() == [true, false, true, true, false, false])
        #expect(ServerConfiguration().metricsAllow == AddressRange.loopback)
    }

    /// Asks `check` again until it holds or `seconds` pass; whether it held.
    private func eventually(seconds: Double = 10, _ check: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try check() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try check()
    }
}

import ChorusLocking
import ChorusNet

private final class AnswerBox: Sendable {
    private let value = Locked<Bool?>(nil)
    func set(_ answer: Bool) { value.withLock { $0 = answer } }
    func get() -> Bool? { value.withLock { $0 } }
}

private final class AnswerListBox: Sendable {
    private let value = Locked<[Bool]>([])
    func set(_ answers: [Bool]) { value.withLock { $0 = answers } }
    func get() -> [Bool] { value.withLock { $0 } }
}

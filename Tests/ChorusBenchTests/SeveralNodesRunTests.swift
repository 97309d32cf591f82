import ChorusTestSupport
import Foundation
import Testing

/// chorus-bench run as a user runs it, against a real chorusd over TLS on loopback, with
/// `--servers`. Two separate chorusd would not share a database, so "two nodes" here is
/// one server listed twice: two connection lists, everything must still arrive.
@Suite(.timeLimit(.minutes(10))) struct SeveralNodesRunTests {
    @Test func fanOutOverOneServerListedTwiceLosesNothingAndSplitsTheLatency() throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "fanout", "--servers", "\(server.address),\(server.address)", "--ca", server.certificate,
            "--server-pid", String(server.process.processIdentifier),
            "--members", "10", "--senders", "4", "--messages", "25", "--window", "4",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = run.json
        #expect(json["ok"] as? Bool == true)
        #expect(json["nodes"] as? Int == 2)
        #expect(json["servers"] as? [String] == [server.address, server.address])
        #expect((json["parameters"] as? [String: Any])?["members_per_node"] as? [Int] == [5, 5])
        // 4 senders × 25 messages reach the 9 other members each.
        #expect(json["deliveries"] as? Int == 900)
        #expect(json["lost"] as? Int == 0)
        #expect(json["duplicates"] as? Int == 0)
        let same = try #require(json["same_node_latency_ms"] as? [String: Any])
        let cross = try #require(json["cross_node_latency_ms"] as? [String: Any])
        // Senders 0 and 2 sit with members 0, 2, 4, 6, 8; senders 1 and 3 with the rest.
        // Each sender reaches 4 members on its node and 5 on the other.
        #expect(same["count"] as? Int == 4 * 25 * 4)
        #expect(cross["count"] as? Int == 4 * 25 * 5)
        #expect(json["cross_node_deliveries"] as? Int == 500)
        for figures in [same, cross] {
            #expect(figures["p50"] is Double && figures["p99"] is Double)
        }
        #expect(run.stderr.contains("against 2 nodes \(server.address), \(server.address)"))
        #expect(run.stderr.contains("members per node: 5 + 5"))
        #expect(run.stderr.contains("cross-node deliveries: 500 "))
        #expect(run.stderr.contains("same-node deliveries: 400:"))
    }

    /// Three connection lists and two generator loops, whose shares of the members cut
    /// across each other: still nothing lost, and the split follows member number mod 3.
    @Test func threeNodesOnTwoGeneratorLoops() throws {
        let server = try BenchServer()
        let list = Array(repeating: server.address, count: 3).joined(separator: ",")
        let run = try BenchRun.run([
            "fanout", "--servers", list, "--ca", server.certificate, "--threads", "2",
            "--members", "11", "--senders", "3", "--messages", "20",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let json = run.json
        #expect(json["nodes"] as? Int == 3)
        #expect((json["parameters"] as? [String: Any])?["members_per_node"] as? [Int] == [4, 4, 3])
        #expect(json["deliveries"] as? Int == 3 * 20 * 10)
        #expect(json["lost"] as? Int == 0)
        // Sender 0 shares its node with members 3, 6, 9; sender 1 with 4, 7, 10; sender 2
        // with 5, 8: 8 receivers of 30, 20 messages each.
        #expect((json["same_node_latency_ms"] as? [String: Any])?["count"] as? Int == 8 * 20)
        #expect((json["cross_node_latency_ms"] as? [String: Any])?["count"] as? Int == 22 * 20)
    }

    /// Every other workload runs over two nodes too.
    @Test(arguments: [
        ["writes", "--clients", "4", "--seconds", "0.3"],
        ["connections", "--sessions", "6", "--accounts", "3", "--settle", "0"],
        ["handshake", "--loops", "2", "--seconds", "0.3"],
        ["login", "--loops", "2", "--seconds", "0.3"],
    ])
    func everyWorkloadRunsOverTwoNodes(workload: [String]) throws {
        let server = try BenchServer()
        let run = try BenchRun.run(workload + ["--servers", "\(server.address),\(server.address)", "--ca", server.certificate])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["ok"] as? Bool == true)
        #expect(run.json["nodes"] as? Int == 2)
        #expect(run.json["problems"] as? [Any] != nil && (run.json["problems"] as? [Any])?.isEmpty == true)
    }

    /// `--server-pid A,B`: the server CPU is both processes' together, and each is listed.
    @Test func serverCPUIsSummedOverTheNodesProcesses() throws {
        let busy = try BenchServer()
        let idle = try BenchServer()
        let (a, b) = (busy.process.processIdentifier, idle.process.processIdentifier)
        let run = try BenchRun.run([
            "writes", "--servers", "\(busy.address),\(busy.address)", "--ca", busy.certificate,
            "--server-pid", "\(a),\(b)", "--clients", "4", "--seconds", "0.5",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let processes = try #require(run.json["server_processes_cpu_s"] as? [String: Double], "\(run.stdout)")
        #expect(Set(processes.keys) == [String(a), String(b)])
        let total = try #require(run.json["server_cpu_s"] as? Double)
        #expect(abs(total - processes.values.reduce(0, +)) < 0.0021)
        #expect(processes[String(a)]! > 0)
        #expect(run.stderr.contains("server processes: \(a) "))
    }

    /// Members really go to the second node: on two chorusd that share no database, the
    /// room's invite code does not exist on the second, so the odd members (placed there)
    /// cannot join. A bundle of both certificates verifies both nodes.
    @Test func theSecondNodeGetsTheOddMembers() throws {
        let first = try BenchServer()
        let second = try BenchServer()
        let scratch = try ScratchFolder()
        let bundle = scratch.path + "/both.pem"
        let pem = try String(contentsOfFile: first.certificate, encoding: .utf8) + String(contentsOfFile: second.certificate, encoding: .utf8)
        try pem.write(toFile: bundle, atomically: true, encoding: .utf8)
        let run = try BenchRun.run([
            "fanout", "--servers", "\(first.address),\(second.address)", "--ca", bundle,
            "--members", "4", "--senders", "1", "--messages", "1",
        ])
        #expect(run.status == 1)
        // Members 1 and 3 join at the same time; whichever is refused first is reported.
        let refused = try #require(run.stderr.firstRange(of: /member (\d+): ROOM JOIN: ERR 404/), "\(run.stderr)")
        #expect(Int(run.stderr[refused].split(separator: " ")[1].dropLast()).map { $0 % 2 } == 1, "\(run.stderr)")
    }

    /// Writers and the connections workload's accounts, on two unshared chorusd: each
    /// server registered exactly the numbers round robin gives it. (As many sessions as
    /// accounts: session i authenticates with account i's token, on the same node.)
    @Test(arguments: [
        (["writes", "--clients", "5", "--seconds", "0.2"], Character("w")),
        (["connections", "--sessions", "5", "--accounts", "5", "--settle", "0"], Character("c")),
    ])
    func eachNodeGetsItsShareOfTheAccounts(workload: [String], kind: Character) throws {
        let first = try BenchServer()
        let second = try BenchServer()
        let run = try BenchRun.run(workload + ["--servers", "\(first.address),\(second.address)", "--insecure"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(first.registered(kind: kind, expected: 3) == [0, 2, 4])
        #expect(second.registered(kind: kind, expected: 2) == [1, 3])
    }

    /// Login and handshake loops alternate nodes too: on two unshared chorusd the account
    /// exists only on the first, so the loops on the second are refused.
    @Test(arguments: [
        ["login", "--loops", "2", "--seconds", "0.3"],
        ["handshake", "--loops", "2", "--seconds", "0.3"],
    ])
    func loopsOnTheSecondNodeMeetItsOwnDatabase(workload: [String]) throws {
        let first = try BenchServer()
        let second = try BenchServer()
        let run = try BenchRun.run(workload + ["--servers", "\(first.address),\(second.address)", "--insecure"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("failures; first: LOGIN: ERR") || run.stderr.contains("failures; first: AUTH: "), "\(run.stderr)")
        #expect(first.registered(kind: workload[0] == "login" ? "l" : "h", expected: 1) == [0])
    }

    @Test func aSingleServerReportsOneNode() throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "fanout", "--port", String(server.port), "--ca", server.certificate, "--members", "3", "--senders", "1", "--messages", "5",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["nodes"] as? Int == 1)
        #expect(run.json["servers"] as? [String] == [server.address])
        #expect(run.json["cross_node_deliveries"] as? Int == 0)
        #expect((run.json["same_node_latency_ms"] as? [String: Any])?["count"] as? Int == 10)
        #expect(!run.stderr.contains("cross-node"))
    }

    /// A bad list or a node that is not there: one line on standard error, status 2, and
    /// nothing measured.
    @Test func aBadServerListOrAnUnreachableNodeIsAUsageError() throws {
        let server = try BenchServer()
        let closed = try FreePort.next()
        let cases: [(String, String)] = [
            ("\(server.address),", "item 2 of 2 is empty"),
            ("127.0.0.1", "has no port"),
            ("127.0.0.1:99999", "1...65535"),
            ("\(server.address),127.0.0.1:\(closed)", "cannot connect to 127.0.0.1:\(closed)"),
        ]
        for (list, reason) in cases {
            let run = try BenchRun.run(["fanout", "--servers", list, "--ca", server.certificate])
            #expect(run.status == 2, "\(list): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(list): \(run.stderr)")
            #expect(lines.first?.hasPrefix("chorus-bench: --servers: ") == true)
            #expect(run.stderr.contains(reason), "\(list): \(run.stderr)")
        }
    }
}

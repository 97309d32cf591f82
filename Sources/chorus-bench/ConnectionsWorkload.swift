import ChorusProtocol
import Foundation

/// `connections`: C idle, logged-in TLS sessions. Measures how fast they are established
/// and how much resident memory the server needs for each.
enum ConnectionsWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<ConnectionsShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let accounts = min(options.accounts, options.sessions)
        let names = (0..<accounts).map { context.userName("c", $0) }
        let password = context.password
        let parallel = max(1, options.parallel / shards)

        let issued = try generator.run("register \(accounts) accounts with tokens", timeout: options.timeout, only: 0) { shard, finish in
            TokenIssuer.issue(nodes: shard.nodes, names: names, password: password, parallel: parallel) { finish($0) }
        }[0]
        let tokens = issued.tokens
        Thread.sleep(forTimeInterval: options.settle)
        let rssBefore = ProcessUsage.residentBytes(pids: context.server.pids)

        let numbers = (0..<shards).map { BenchContext.share(of: options.sessions, shard: $0, shards: shards) }
        let (tallies, cost): ([RoundTripTally], CPUCost) = try context.measured {
            try generator.run("open \(options.sessions) sessions", timeout: options.timeout) { shard, finish in
                shard.open(numbers: numbers[shard.index], tokens: tokens, firstNumber: shard.index, parallel: parallel) { finish($0) }
            }
        }
        try generator.run("check the sessions", timeout: options.timeout) { shard, finish in
            shard.checkAll(completion: finish)
        }
        Thread.sleep(forTimeInterval: options.settle)
        let rssAfter = ProcessUsage.residentBytes(pids: context.server.pids)
        let held: [Int] = try generator.run("count open sessions", timeout: options.timeout) { shard, finish in
            finish(.success(shard.openCount))
        }
        let total = RoundTripTally.merged(tallies)
        let heldCount = held.reduce(0, +)

        var report = BenchReport(workload: "connections")
        report.tls = issued.tls
        report.parameters = [
            ("sessions", .int(options.sessions)), ("accounts", .int(accounts)), ("parallel", .int(options.parallel)),
        ]
        var perSession: Double?
        if let rssBefore, let rssAfter {
            perSession = Double(rssAfter - rssBefore) / Double(max(1, total.completed))
        }
        report.results = [
            ("established", .int(total.completed)),
            ("held", .int(heldCount)),
            ("seconds", .number(total.seconds, digits: 3)),
            ("sessions_per_s", .number(total.perSecond, digits: 0)),
            ("setup_latency_ms", total.latency.json),
            ("server_rss_before", rssBefore.map { .int($0) } ?? .null),
            ("server_rss_after", rssAfter.map { .int($0) } ?? .null),
            ("rss_per_session_bytes", perSession.map { .number($0, digits: 0) } ?? .null),
            ("rss_per_session_kib", perSession.map { .number($0 / 1024, digits: 1) } ?? .null),
        ]
        report.cost = cost
        report.summary = [
            "\(total.completed) sessions (connect, TLS, MODE json, AUTH) in \(String(format: "%.2f", total.seconds)) s = \(String(format: "%.0f", total.perSecond)) /s, \(options.parallel) at a time",
            "per session: \(total.latency.summary)",
            perSession.map { String(format: "server RSS %.1f MiB → %.1f MiB: %.1f KiB per idle session", Double(rssBefore!) / 1_048_576, Double(rssAfter!) / 1_048_576, $0 / 1024) }
                ?? "server RSS unknown (give --server-pid)",
            "\(heldCount) sessions still open after \(String(format: "%.0f", options.settle)) s",
        ]
        if heldCount < options.sessions { report.problem("only \(heldCount) of \(options.sessions) sessions held") }
        if let failure = total.firstFailure { report.problem("\(total.failures) failures; first: \(failure)") }
        return report
    }
}

import ChorusProtocol
import Foundation

/// `handshake`: K parallel loops of connect + full TLS handshake + `AUTH TOKEN` + `QUIT`
/// for D seconds. Measures complete sessions per second: the cost of a client that
/// connects, does one thing and leaves (a cron bot).
enum HandshakeWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<HandshakeShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let loops = options.loops ?? 4
        let names = [context.userName("h", 0)]
        let password = context.password

        let issued = try generator.run("register a bot account", timeout: options.timeout, only: 0) { shard, finish in
            TokenIssuer.issue(nodes: shard.nodes, names: names, password: password, parallel: 1) { finish($0) }
        }[0]
        let token = issued.tokens[0]
        Thread.sleep(forTimeInterval: 0.2)

        let numbers = (0..<shards).map { BenchContext.share(of: loops, shard: $0, shards: shards) }
        let (tallies, cost): ([RoundTripTally], CPUCost) = try context.measured {
            // Timed from here, after a --probe has run.
            let deadline = BenchClock.now() + UInt64(options.seconds * 1e9)
            return try generator.run("run \(loops) handshake loops", timeout: options.seconds + options.timeout) { shard, finish in
                shard.run(loops: numbers[shard.index], token: token, deadline: deadline) { finish(.success($0)) }
            }
        }
        let total = RoundTripTally.merged(tallies)

        var report = BenchReport(workload: "handshake")
        report.tls = issued.tls
        report.parameters = [("loops", .int(loops)), ("seconds", .number(options.seconds, digits: 1)), ("mode", .string("text"))]
        report.results = total.reportFields(counted: "sessions", rate: "sessions_per_s", latency: "session_latency_ms")
        report.cost = cost
        report.summary = [
            "\(loops) loops of connect + TLS + AUTH + QUIT: \(total.completed) sessions in \(String(format: "%.2f", total.seconds)) s = \(String(format: "%.0f", total.perSecond)) /s",
            "per session: \(total.latency.summary)",
        ]
        total.noteFailures(in: &report)
        return report
    }
}

import ChorusProtocol
import Foundation

/// `writes`: T clients doing `TASK PROGRESS` round trips for D seconds. Every OK comes
/// after the change is committed, so this is acknowledged durable writes per second.
enum WritesWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<WritesShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let prefix = context.namePrefix("w")
        let password = context.password
        let window = options.effectiveWindow
        let numbers = (0..<shards).map { BenchContext.share(of: options.clients, shard: $0, shards: shards) }
        let parallel = max(1, options.parallel / shards)

        let tls = try generator.run("register \(options.clients) clients", timeout: options.timeout) { shard, finish in
            shard.prepare(numbers: numbers[shard.index], namePrefix: prefix, password: password, parallel: parallel) { finish($0) }
        }[0]
        let (tallies, cost): ([RoundTripTally], CPUCost) = try context.measured {
            // Timed from here, after a --probe has run.
            let deadline = BenchClock.now() + UInt64(options.seconds * 1e9)
            return try generator.run("write for \(options.seconds) s", timeout: options.seconds + options.timeout) { shard, finish in
                shard.run(window: window, deadline: deadline) { finish(.success($0)) }
            }
        }
        let total = RoundTripTally.merged(tallies)

        var report = BenchReport(workload: "writes")
        report.tls = tls
        report.parameters = [
            ("clients", .int(options.clients)), ("window", .int(window)), ("seconds", .number(options.seconds, digits: 1)),
        ]
        report.results = total.reportFields(counted: "writes", rate: "writes_per_s", latency: "latency_ms")
        report.cost = cost
        report.summary = [
            "\(options.clients) clients × window \(window) of TASK PROGRESS: \(total.completed) acknowledged writes in \(String(format: "%.2f", total.seconds)) s = \(String(format: "%.0f", total.perSecond)) /s",
            "latency: \(total.latency.summary)",
        ]
        total.noteFailures(in: &report)
        return report
    }
}

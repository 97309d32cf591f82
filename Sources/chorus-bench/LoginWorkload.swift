import ChorusProtocol
import Foundation

/// `login`: K sessions logging in with a password flat out for D seconds, at the server's
/// scrypt cost (a spawned server keeps the default, 17), while one unrelated session
/// PINGs. Measures logins per second and that PING's latency.
enum LoginWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<LoginShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let loops = options.loops ?? 4
        let name = context.userName("l", 0)
        let password = context.password

        let tls = try generator.run("register the account", timeout: options.timeout, only: 0) { shard, finish in
            shard.register(name: name, password: password) { finish($0) }
        }[0]
        let numbers = (0..<shards).map { BenchContext.share(of: loops, shard: $0, shards: shards) }
        try generator.run("open \(loops) sessions and the pinger", timeout: options.timeout) { shard, finish in
            shard.prepare(loops: numbers[shard.index], withPinger: shard.index == 0, completion: finish)
        }
        let interval = options.pingInterval
        let (results, cost): ([LoginShard.Tallies], CPUCost) = try context.measured {
            // Timed from here, after a --probe has run.
            let deadline = BenchClock.now() + UInt64(options.seconds * 1e9)
            return try generator.run("log in for \(options.seconds) s", timeout: options.seconds + options.timeout) { shard, finish in
                shard.run(name: name, password: password, deadline: deadline, pingInterval: interval) { finish(.success($0)) }
            }
        }
        let logins = RoundTripTally.merged(results.map(\.logins))
        let pings = RoundTripTally.merged(results.map(\.pings))

        var report = BenchReport(workload: "login")
        report.tls = tls
        report.parameters = [
            ("loops", .int(loops)), ("seconds", .number(options.seconds, digits: 1)),
            ("ping_interval_ms", .number(interval, digits: 1)),
            ("scrypt_log_n", options.spawn != nil ? .int(options.scryptLogN ?? 17) : .null),
        ]
        report.results = [
            ("logins", .int(logins.completed)),
            ("failures", .int(logins.failures + pings.failures)),
            ("seconds", .number(logins.seconds, digits: 3)),
            ("logins_per_s", .number(logins.perSecond, digits: 1)),
            ("login_latency_ms", logins.latency.json),
            ("ping_latency_ms", pings.latency.json),
        ]
        report.cost = cost
        report.summary = [
            "\(loops) loops of LOGIN: \(logins.completed) logins in \(String(format: "%.2f", logins.seconds)) s = \(String(format: "%.1f", logins.perSecond)) /s",
            "login latency: \(logins.latency.summary)",
            "unrelated PING every \(String(format: "%g", interval)) ms (\(pings.completed) answered): \(pings.latency.summary)",
        ]
        if let failure = logins.firstFailure ?? pings.firstFailure {
            report.problem("\(logins.failures + pings.failures) failures; first: \(failure)")
        }
        if logins.completed == 0 { report.problem("no login finished") }
        return report
    }
}

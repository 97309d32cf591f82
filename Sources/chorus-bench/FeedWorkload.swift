import ChorusNet
import ChorusProtocol
import Foundation

/// `feed`: a room with `--tasks N` tasks that have due dates (200 unless given), its
/// calendar feed linked, and `--clients T` keep-alive HTTPS connections fetching it one
/// request at a time: D seconds of whole feeds (200, the document rendered from the store
/// each time), then D seconds of `If-None-Match` with the feed's ETag (304). What a
/// household's calendar apps cost the server, and what an honest ETag saves.
enum FeedWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<FeedShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let tasks = options.tasks ?? 200
        let owner = context.userName("f", 0)
        let password = context.password

        let feed = try generator.run("add \(tasks) tasks and link the feed", timeout: options.timeout, only: 0) { shard, finish in
            shard.populate(owner: owner, password: password, tasks: tasks) { finish($0) }
        }[0]
        let counts = (0..<shards).map { BenchContext.share(of: options.clients, shard: $0, shards: shards) }
        let http = try TLSClientContext(trust: context.trust, applicationProtocols: ["http/1.1"])
        let etag = try generator.run("open \(options.clients) feed readers", timeout: options.timeout) { shard, finish in
            shard.prepare(count: counts[shard.index].count, firstNumber: counts[shard.index].first ?? 0, feed: feed, tls: http) { finish($0) }
        }.first { !$0.isEmpty } ?? ""

        var report = BenchReport(workload: "feed")
        report.tls = "TLS, ALPN http/1.1"
        var phases: [(name: String, tally: FeedShard.Tally, cost: CPUCost)] = []
        for (name, conditional) in [("whole", nil), ("not_modified", etag)] as [(String, String?)] {
            let (tallies, cost): ([FeedShard.Tally], CPUCost) = try context.measured {
                let deadline = BenchClock.now() + UInt64(options.seconds * 1e9)
                return try generator.run("fetch the feed for \(options.seconds) s (\(name))", timeout: options.seconds + options.timeout) { shard, finish in
                    shard.run(ifNoneMatch: conditional, deadline: deadline) { finish(.success($0)) }
                }
            }
            var merged = FeedShard.Tally()
            for tally in tallies {
                merged.roundTrips.merge(tally.roundTrips)
                merged.bodyBytes += tally.bodyBytes
            }
            phases.append((name, merged, cost))
        }

        report.parameters = [("tasks", .int(tasks)), ("clients", .int(options.clients)), ("seconds", .number(options.seconds, digits: 1))]
        for phase in phases {
            let total = phase.tally.roundTrips
            var fields = total.reportFields(counted: "responses", rate: "responses_per_s", latency: "latency_ms")
            let perResponse = total.completed > 0 ? phase.tally.bodyBytes / total.completed : 0
            fields.append(("body_bytes", .int(perResponse)))
            if let server = phase.cost.serverSeconds, total.completed > 0 {
                fields.append(("server_cpu_us_per_response", .number(server * 1e6 / Double(total.completed), digits: 1)))
            }
            fields.append(("server_cpu_s", phase.cost.serverSeconds.map { .number($0, digits: 3) } ?? .null))
            fields.append(("generator_cpu_s", .number(phase.cost.generatorSeconds, digits: 3)))
            fields.append(("other_cpu_s", phase.cost.otherSeconds.map { .number($0, digits: 3) } ?? .null))
            report.results.append((phase.name, .object(fields)))
            report.summary.append("\(phase.name == "whole" ? "whole feeds (200)" : "If-None-Match (304)"): \(total.completed) in \(String(format: "%.2f", total.seconds)) s = \(String(format: "%.0f", total.perSecond)) /s, \(perResponse) body bytes each; latency: \(total.latency.summary)")
            report.summary.append("  \(phase.cost.summary)")
            if total.failures > 0 {
                report.problem("\(phase.name): \(total.failures) failed requests, the first: \(total.firstFailure ?? "?")")
            }
        }
        if let whole = phases.first?.tally.roundTrips, let conditional = phases.last?.tally.roundTrips, whole.perSecond > 0 {
            report.summary.append("304 vs 200: \(String(format: "%.1f", conditional.perSecond / whole.perSecond))× the requests per second")
        }
        return report
    }
}

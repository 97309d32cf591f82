import ChorusProtocol
import Foundation

/// `tasks`: one room with `--tasks N` top-level tasks, the first `--parents P` of them with
/// `--subtasks K` subtasks each, listed whole (`TASKS R all`) by `--clients T` sessions
/// of its owner for D seconds: the store's task read with its subtask roll-ups, on a
/// large room, and the reply's rendering.
enum TasksWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<TasksShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let owner = context.userName("t", 0)
        let password = context.password
        let window = options.effectiveWindow
        let parallel = max(1, options.parallel / shards)
        let tasks = options.tasks ?? 2000

        let room = try generator.run("add \(tasks) tasks", timeout: options.timeout, only: 0) { shard, finish in
            shard.populate(owner: owner, password: password, tasks: tasks, parents: options.parents,
                           subtasks: options.subtasks) { finish($0) }
        }[0]
        let counts = (0..<shards).map { BenchContext.share(of: options.clients, shard: $0, shards: shards) }
        let tls = try generator.run("log in \(options.clients) readers", timeout: options.timeout) { shard, finish in
            shard.prepare(count: counts[shard.index].count, firstNumber: counts[shard.index].first ?? 0, room: room,
                          password: password, parallel: parallel) { finish($0) }
        }[0]
        try generator.run("check the listing", timeout: options.timeout, only: 0) { shard, finish in
            shard.check { finish($0) }
        }
        let (tallies, cost): ([RoundTripTally], CPUCost) = try context.measured {
            let deadline = BenchClock.now() + UInt64(options.seconds * 1e9)
            return try generator.run("list for \(options.seconds) s", timeout: options.seconds + options.timeout) { shard, finish in
                shard.run(window: window, deadline: deadline) { finish(.success($0)) }
            }
        }
        let total = RoundTripTally.merged(tallies)

        var report = BenchReport(workload: "tasks")
        report.tls = tls
        report.parameters = [
            ("tasks", .int(tasks)), ("parents", .int(options.parents)), ("subtasks", .int(options.subtasks)),
            ("listed", .int(room.tasks)), ("clients", .int(options.clients)), ("window", .int(window)),
            ("seconds", .number(options.seconds, digits: 1)),
        ]
        report.results = total.reportFields(counted: "listings", rate: "listings_per_s", latency: "latency_ms")
        report.cost = cost
        report.summary = [
            "\(options.clients) clients × window \(window) of TASKS on a room of \(room.tasks) tasks (\(options.parents) parents × \(options.subtasks) subtasks): \(total.completed) listings in \(String(format: "%.2f", total.seconds)) s = \(String(format: "%.1f", total.perSecond)) /s",
            "latency: \(total.latency.summary)",
        ]
        total.noteFailures(in: &report)
        return report
    }
}

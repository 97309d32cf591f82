import ChorusNet
import ChorusProtocol
import Foundation

/// `fanout`: N members in one room, S of them sending M messages each with at most W in
/// flight, P bytes of text. Measures deliveries per second (a message reaching one
/// member's session as an event), delivery latency from the send time carried in the
/// text, and checks that nothing is lost.
enum FanoutWorkload: Workload {
    static func run(_ context: BenchContext, on generator: Generator<FanoutShard>) throws -> BenchReport {
        let (options, shards) = (context.options, generator.threadCount)
        let prefix = context.namePrefix("m")
        let password = context.password
        let roomName = "bench \(context.runID)"

        let setupStart = Date()
        let room = try generator.run("create the room", timeout: options.timeout, only: 0) { shard, finish in
            shard.createRoom(owner: prefix + "0", password: password, roomName: roomName) { finish($0) }
        }[0]
        let numbers = (0..<shards).map { BenchContext.share(of: options.members, shard: $0, shards: shards, from: 1) }
        let parallel = max(1, options.parallel / shards)
        try generator.run("register and join \(options.members - 1) members", timeout: options.timeout) { shard, finish in
            shard.join(numbers: numbers[shard.index], namePrefix: prefix, password: password, code: room.code,
                       parallel: parallel, completion: finish)
        }
        try generator.run("wait for set-up events", timeout: options.timeout) { shard, finish in
            shard.drain(completion: finish)
        }
        if options.mode == "text" {
            try generator.run("switch members to text mode", timeout: options.timeout) { shard, finish in
                shard.switchToTextMode(zones: options.zones, completion: finish)
            }
        }
        let setupSeconds = Date().timeIntervalSince(setupStart)

        let plan = FanoutShard.Plan(room: room.room, senders: options.senders, messages: options.messages,
                                    window: options.effectiveWindow, payload: options.payload, nodes: context.nodeCount)
        let progress = RunProgress(shards: shards)
        let healthz = try options.healthzInterval.map { interval in
            try HealthzProbe(address: context.addresses[0],
                             tls: TLSClientContext(trust: context.trust, applicationProtocols: ["http/1.1"]), interval: interval)
        }
        let (outcome, cost) = try context.measured {
            healthz?.start()
            try generator.run("start sending", timeout: options.timeout) { shard, finish in
                shard.start(plan, progress: progress)
                finish(nil)
            }
            return progress.wait(stallSeconds: options.stall)
        }
        let health = healthz?.stop()
        let tallies: [FanoutShard.Tally] = try generator.run("collect", timeout: options.timeout) { shard, finish in
            finish(.success(shard.finish()))
        }

        var total = FanoutShard.Tally()
        total.startedAt = UInt64.max
        for tally in tallies {
            total.delivered += tally.delivered
            total.expected += tally.expected
            total.duplicates += tally.duplicates
            total.acked += tally.acked
            total.failures += tally.failures
            total.firstFailure = total.firstFailure ?? tally.firstFailure
            total.startedAt = min(total.startedAt, tally.startedAt)
            total.lastProgressAt = max(total.lastProgressAt, tally.lastProgressAt)
            total.deliveryLatency.merge(tally.deliveryLatency)
            total.replyLatency.merge(tally.replyLatency)
            total.byNode.merge(tally.byNode)
        }
        let seconds = max(Double(total.lastProgressAt &- total.startedAt) / 1e9, 1e-9)
        let lost = total.expected - total.delivered
        let sentMessages = options.senders * options.messages

        var report = BenchReport(workload: "fanout")
        report.tls = room.tls
        report.parameters = [
            ("members", .int(options.members)), ("senders", .int(options.senders)),
            ("messages", .int(options.messages)), ("window", .int(plan.window)), ("payload", .int(options.payload)),
            ("mode", .string(options.mode)), ("zones", .array(options.zones.map { .string($0) })),
            ("healthz_interval_ms", options.healthzInterval.map { .number($0 * 1000, digits: 1) } ?? .null),
            ("members_per_node", .array(NodeAssignment.counts(of: options.members, nodes: context.nodeCount).map { .int($0) })),
        ]
        // With one node every delivery is a same-node one.
        if context.nodeCount == 1 { total.byNode.sameNode = total.deliveryLatency }
        report.results = [
            ("deliveries", .int(total.delivered)),
            ("expected_deliveries", .int(total.expected)),
            ("lost", .int(lost)),
            ("duplicates", .int(total.duplicates)),
            ("messages_acked", .int(total.acked)),
            ("seconds", .number(seconds, digits: 3)),
            ("deliveries_per_s", .number(Double(total.delivered) / seconds, digits: 0)),
            ("messages_per_s", .number(Double(total.acked) / seconds, digits: 0)),
            ("latency_ms", total.deliveryLatency.json),
            ("say_reply_latency_ms", total.replyLatency.json),
        ] + total.byNode.jsonFields
        if let health {
            report.results += [
                ("healthz_answered", .int(health.answered)),
                ("healthz_not_ok", .int(health.notOK)),
                ("healthz_latency_ms", health.latency.json),
            ]
        }
        report.results += [
            ("setup_s", .number(setupSeconds, digits: 2)),
            ("outcome", .string("\(outcome)")),
        ]
        report.cost = cost
        report.summary = [
            "\(options.members) members, \(options.senders) senders × \(options.messages) messages, window \(plan.window), \(options.payload)-byte text, \(options.mode) mode (set-up \(String(format: "%.1f", setupSeconds)) s)",
            String(format: "deliveries: %d of %d in %.3f s = %.0f /s; messages %.0f /s", total.delivered, total.expected,
                   seconds, Double(total.delivered) / seconds, Double(total.acked) / seconds),
            "delivery latency: \(total.deliveryLatency.summary)",
        ]
        if context.nodeCount > 1 {
            let perNode = NodeAssignment.counts(of: options.members, nodes: context.nodeCount).map(String.init).joined(separator: " + ")
            report.summary.append("members per node: \(perNode)")
            report.summary += total.byNode.summary
        }
        report.summary += [
            "SAY reply latency: \(total.replyLatency.summary)",
            "lost \(lost), duplicates \(total.duplicates), acked \(total.acked) of \(sentMessages)",
        ]
        if let health {
            report.summary.append("GET /healthz: \(health.answered) answered, \(health.notOK) not 200; \(health.latency.summary)")
            if health.notOK > 0 { report.problem("\(health.notOK) /healthz answers other than 200") }
            if let failure = health.failure { report.problem(failure) }
        }
        if lost > 0 { report.problem("\(lost) deliveries lost (\(outcome))") }
        if total.duplicates > 0 { report.problem("\(total.duplicates) duplicate deliveries") }
        if total.acked < sentMessages { report.problem("\(sentMessages - total.acked) SAY requests not acknowledged") }
        if let failure = total.firstFailure { report.problem("\(total.failures) failures; first: \(failure)") }
        return report
    }
}

import ChorusProtocol
import Foundation

/// What a measured interval cost: CPU seconds of the server (and of each of its threads)
/// and of the generator, against the wall time. With two cores shared by both, these say
/// who was the bottleneck.
struct CPUCost: Sendable {
    let wallSeconds: Double
    let serverSeconds: Double?
    let generatorSeconds: Double
    /// CPU seconds taken by everything else on the machine meanwhile (nil when unknown):
    /// more than a little means the figures are disturbed.
    let otherSeconds: Double?
    /// Each server process (node) when there are several, in `--server-pid` order.
    let serverProcesses: [(pid: Int32, seconds: Double)]
    /// What `--probe` printed before and after the interval.
    var probe: ProbeReadings?
    /// Server threads that used CPU, busiest first.
    let serverThreads: [(name: String, seconds: Double)]

    init(from start: ProcessUsage, to end: ProcessUsage) {
        wallSeconds = Double(end.wallNanoseconds - start.wallNanoseconds) / 1e9
        if let before = start.serverSeconds, let after = end.serverSeconds {
            serverSeconds = after - before
        } else {
            serverSeconds = nil
        }
        generatorSeconds = end.generatorSeconds - start.generatorSeconds
        var processes: [(pid: Int32, seconds: Double)] = []
        if end.serverProcesses.count > 1 {
            for (before, after) in zip(start.serverProcesses, end.serverProcesses) {
                if let from = before.seconds, let to = after.seconds { processes.append((after.pid, to - from)) }
            }
        }
        serverProcesses = processes
        if let before = start.machineBusySeconds, let after = end.machineBusySeconds, let serverSeconds {
            otherSeconds = max(0, (after - before) - serverSeconds - generatorSeconds)
        } else {
            otherSeconds = nil
        }
        var threads: [(name: String, seconds: Double)] = []
        for (tid, after) in end.serverThreads {
            let used = after.seconds - (start.serverThreads[tid]?.seconds ?? 0)
            if used > 0 { threads.append((after.name, used)) }
        }
        serverThreads = threads.sorted { $0.seconds > $1.seconds }
    }

    var jsonFields: [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("server_cpu_s", serverSeconds.map { .number($0, digits: 3) } ?? .null),
            ("generator_cpu_s", .number(generatorSeconds, digits: 3)),
            ("other_cpu_s", otherSeconds.map { .number($0, digits: 3) } ?? .null),
            ("wall_s", .number(wallSeconds, digits: 3)),
            ("server_threads_cpu_s", .object(serverThreads.map { ($0.name, .number($0.seconds, digits: 3)) })),
        ]
        if let probe {
            fields.append(("probe", .object([("before", .string(probe.before)), ("after", .string(probe.after))])))
        }
        if !serverProcesses.isEmpty {
            fields.append(("server_processes_cpu_s", .object(serverProcesses.map { (String($0.pid), .number($0.seconds, digits: 3)) })))
        }
        return fields
    }

    var summary: String {
        let server = serverSeconds.map { String(format: "%.2f s (%.0f%% of one core)", $0, 100 * $0 / max(wallSeconds, 1e-9)) }
            ?? "unknown (give --server-pid)"
        var line = "cpu: server \(server), generator "
            + String(format: "%.2f s (%.0f%%), over %.2f s", generatorSeconds, 100 * generatorSeconds / max(wallSeconds, 1e-9), wallSeconds)
        if let otherSeconds {
            line += String(format: ", everything else %.2f s", otherSeconds)
        }
        if let probe {
            line += "\n     probe before: \(probe.before)\n     probe after: \(probe.after)"
        }
        if !serverProcesses.isEmpty {
            line += "\n     server processes: " + serverProcesses.map { "\($0.pid) " + String(format: "%.2f s", $0.seconds) }.joined(separator: ", ")
        }
        if !serverThreads.isEmpty {
            let threads = serverThreads.prefix(4).map { "\($0.name) " + String(format: "%.2f s", $0.seconds) }
            line += "\n     server threads: " + threads.joined(separator: ", ")
        }
        return line
    }
}

import ChorusProtocol
import Foundation

/// One run's result: a single JSON line for scripts (standard output) and a few readable
/// lines for people (standard error).
struct BenchReport {
    let workload: String
    /// False when something was lost or failed; the exit status follows it.
    var ok = true
    var problems: [String] = []
    var parameters: [(String, JSONValue)] = []
    var results: [(String, JSONValue)] = []
    var summary: [String] = []
    var cost: CPUCost?
    var tls = "unknown"

    init(workload: String) {
        self.workload = workload
    }

    mutating func problem(_ text: String) {
        ok = false
        problems.append(text)
    }

    func emit(server: ServerUnderTest, nodes: [ServerAddress], threads: Int, transport: BenchTransport) {
        var fields: [(String, JSONValue)] = [
            ("bench", .string("chorus-bench")),
            ("workload", .string(workload)),
            ("ok", .bool(ok)),
            ("server", .string("\(server.host):\(server.port)")),
            ("nodes", .int(nodes.count)),
            ("servers", .array(nodes.map { .string($0.description) })),
            ("spawned", .bool(server.certificatePath != nil)),
            ("tls", .string(tls)),
            ("transport", .string(transport.rawValue)),
            ("generator_threads", .int(threads)),
            ("parameters", .object(parameters)),
        ]
        fields += results
        if let cost { fields += cost.jsonFields }
        fields.append(("problems", .array(problems.map { .string($0) })))
        var line: [UInt8] = []
        JSONValue.encodeFields(fields, into: &line)
        line.append(0x0A)
        FileHandle.standardOutput.write(Data(line))

        let against = nodes.count > 1 ? "\(nodes.count) nodes \(nodes.map(\.description).joined(separator: ", "))" : "\(server.host):\(server.port)"
        var text = "chorus-bench \(workload) against \(against) (\(tls), \(transport == .line ? "line sessions" : "WebSocket sessions"))\n"
        for entry in summary { text += "  \(entry)\n" }
        if let cost { text += "  \(cost.summary)\n" }
        for problem in problems { text += "  PROBLEM: \(problem)\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

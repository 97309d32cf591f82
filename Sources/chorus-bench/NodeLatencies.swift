import ChorusProtocol
import Foundation

/// Fan-out delivery latency split by where sender and receiver sit: on the same node, or
/// on two (the event then crossed the database to reach the receiver's node).
struct NodeLatencies: Sendable {
    var sameNode = LatencyHistogram()
    var crossNode = LatencyHistogram()

    mutating func record(nanoseconds: UInt64, sender: Int, receiver: Int, nodes: Int) {
        if NodeAssignment.crossesNodes(sender: sender, receiver: receiver, nodes: nodes) {
            crossNode.record(nanoseconds: nanoseconds)
        } else {
            sameNode.record(nanoseconds: nanoseconds)
        }
    }

    mutating func merge(_ other: NodeLatencies) {
        sameNode.merge(other.sameNode)
        crossNode.merge(other.crossNode)
    }

    /// The fraction of deliveries that crossed nodes (0 when there were none).
    var crossShare: Double {
        let total = sameNode.count + crossNode.count
        return total == 0 ? 0 : Double(crossNode.count) / Double(total)
    }

    var jsonFields: [(String, JSONValue)] {
        [
            ("cross_node_deliveries", .int(Int64(crossNode.count))),
            ("cross_node_share", .number(crossShare, digits: 4)),
            ("same_node_latency_ms", sameNode.json),
            ("cross_node_latency_ms", crossNode.json),
        ]
    }

    var summary: [String] {
        [
            String(format: "cross-node deliveries: %llu (%.1f %%): p50 %.3f ms · p99 %.3f ms", crossNode.count, 100 * crossShare,
                   crossNode.percentileMilliseconds(0.50), crossNode.percentileMilliseconds(0.99)),
            String(format: "same-node deliveries: %llu: p50 %.3f ms · p99 %.3f ms", sameNode.count,
                   sameNode.percentileMilliseconds(0.50), sameNode.percentileMilliseconds(0.99)),
        ]
    }
}

import Testing
@testable import chorus_bench

/// Sessions go to nodes round robin by number, and fan-out latency splits by whether the
/// sender's node is the receiver's.
@Suite struct NodeAssignmentTests {
    @Test func aHundredMembersOnTwoNodesAreFiftyEach() {
        let nodes = (0..<100).map { NodeAssignment.node(of: $0, nodes: 2) }
        #expect(nodes.filter { $0 == 0 }.count == 50)
        #expect(nodes.filter { $0 == 1 }.count == 50)
        #expect(Array(nodes.prefix(4)) == [0, 1, 0, 1])
        #expect(NodeAssignment.counts(of: 100, nodes: 2) == [50, 50])
    }

    @Test func unevenCountsDifferByAtMostOneAndTheOwnerIsOnTheFirstNode() {
        #expect(NodeAssignment.counts(of: 1000, nodes: 3) == [334, 333, 333])
        #expect(NodeAssignment.counts(of: 2, nodes: 3) == [1, 1, 0])
        #expect(NodeAssignment.node(of: 0, nodes: 3) == 0)
    }

    @Test func oneNodeTakesEverySession() {
        #expect((0..<10).allSatisfy { NodeAssignment.node(of: $0, nodes: 1) == 0 })
        #expect(NodeAssignment.counts(of: 7, nodes: 1) == [7])
        #expect(!NodeAssignment.crossesNodes(sender: 0, receiver: 5, nodes: 1))
    }

    @Test func latenciesSplitIntoSameNodeAndCrossNode() {
        var split = NodeLatencies()
        // Two nodes: members 0, 2, 4 on the first, 1, 3 on the second.
        for _ in 0..<30 { split.record(nanoseconds: 1_000_000, sender: 0, receiver: 2, nodes: 2) }
        for _ in 0..<10 { split.record(nanoseconds: 8_000_000, sender: 0, receiver: 3, nodes: 2) }
        split.record(nanoseconds: 9_000_000, sender: 1, receiver: 4, nodes: 2)
        #expect(split.sameNode.count == 30)
        #expect(split.crossNode.count == 11)
        #expect(abs(split.sameNode.percentileMilliseconds(0.5) - 1) < 0.05)
        #expect(abs(split.crossNode.percentileMilliseconds(0.5) - 8) < 0.2)
        #expect(abs(split.crossNode.percentileMilliseconds(0.99) - 9) < 0.2)
        #expect(abs(split.crossShare - 11.0 / 41.0) < 1e-9)

        var other = NodeLatencies()
        other.record(nanoseconds: 2_000_000, sender: 1, receiver: 3, nodes: 2)
        split.merge(other)
        #expect(split.sameNode.count == 31)
        #expect(split.jsonFields.map(\.0) == ["cross_node_deliveries", "cross_node_share", "same_node_latency_ms", "cross_node_latency_ms"])
        #expect(split.summary.count == 2)
        #expect(split.summary[0].hasPrefix("cross-node deliveries: 11 "))
    }
}

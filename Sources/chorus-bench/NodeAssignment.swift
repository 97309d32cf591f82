/// Which node a numbered session (a fan-out member, a writer, a handshake or login loop)
/// talks to: round robin by number, so N sessions on K nodes put N/K on each (member 0,
/// the room's owner, on the first node).
enum NodeAssignment {
    static func node(of number: Int, nodes: Int) -> Int {
        nodes > 1 ? number % nodes : 0
    }

    /// How many of sessions `0..<total` each node gets.
    static func counts(of total: Int, nodes: Int) -> [Int] {
        (0..<max(1, nodes)).map { node in total / max(1, nodes) + (node < total % max(1, nodes) ? 1 : 0) }
    }

    /// True when a message from member `sender` to member `receiver` crosses between nodes.
    static func crossesNodes(sender: Int, receiver: Int, nodes: Int) -> Bool {
        node(of: sender, nodes: nodes) != node(of: receiver, nodes: nodes)
    }
}

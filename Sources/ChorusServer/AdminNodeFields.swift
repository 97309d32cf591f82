import ChorusCore

/// What ADMIN USERS and ADMIN STATS add when several nodes share the store
/// (`ServerStatus.nodes`): which node each session is on, and the nodes themselves. In
/// one process there are none, and the replies stay as they were.
extension CommandContext {
    /// `user`'s sessions per live node, by node name.
    func sessionsByNode(of user: Int64, in nodes: [NodePresence]) -> [(node: String, sessions: Int)] {
        nodes.compactMap { node in node.users[user].map { (node.name, $0) } }.sorted { $0.node < $1.node }
    }

    /// ADMIN USERS' text after `online`: ` on a (2), b (1)`.
    func onlineText(of user: Int64, in nodes: [NodePresence]) -> String {
        let places = sessionsByNode(of: user, in: nodes)
        return places.isEmpty ? "" : " on " + places.map { "\($0.node) (\($0.sessions))" }.joined(separator: ", ")
    }

    /// ADMIN USERS' JSON fields for `user`: `sessions` (over every node) and `nodes`.
    func onlineFields(of user: Int64, in nodes: [NodePresence]) -> [(String, JSONValue)] {
        let places = sessionsByNode(of: user, in: nodes)
        return [("sessions", .int(Int64(places.reduce(0) { $0 + $1.sessions }))),
                ("nodes", .object(places.map { ($0.node, .int(Int64($0.sessions))) }))]
    }

    /// ADMIN STATS' lines for the nodes, after `sessions`.
    func nodeLines(_ nodes: [NodePresence]) -> [String] {
        nodes.map { node in
            let lag = node.lag.map { "tail \(counted($0, "event")) behind" } ?? "tail lag unknown"
            let age = node.isThisNode ? "this node" : "heartbeat \(String(format: "%.1f", node.heartbeatAge)) s ago"
            let sessions = node.sessions == 1 ? "1 session" : "\(node.sessions) sessions"
            let people = node.users.count == 1 ? "1 person" : "\(node.users.count) people"
            return "    \(node.name.padded(toColumns: 12))  \(sessions) · \(people) online · \(lag) · \(age)"
        }
    }

    /// ADMIN STATS' JSON fields for the nodes: this node's name and every live node.
    func nodeFields(_ nodes: [NodePresence]) -> [(String, JSONValue)] {
        let this = nodes.first { $0.isThisNode }?.name ?? ""
        return [("node", .string(this)), ("nodes", .array(nodes.map { node in
            .object([("name", .string(node.name)), ("sessions", .int(Int64(node.sessions))),
                     ("online", .int(Int64(node.users.count))), ("lag", node.lag.map { .int($0) } ?? .null),
                     ("heartbeat_age_ms", .int(Int64((node.heartbeatAge * 1000).rounded())))])
        }))]
    }
}

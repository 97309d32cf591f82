import ChorusNet

/// One loop's connectors, one per node (a single one without `--servers`): session number
/// i opens on node `NodeAssignment.node(of: i)`. Loop thread only.
final class NodeConnectors {
    let all: [ClientConnector]
    let loop: EventLoop

    init(loop: EventLoop, addresses: [ResolvedAddress], tls: TLSClientContext) {
        precondition(!addresses.isEmpty, "a run needs at least one node")
        self.loop = loop
        all = addresses.map { ClientConnector(loop: loop, address: $0, tls: tls) }
    }

    var count: Int { all.count }

    /// The connector for the session numbered `number`.
    func connector(for number: Int) -> ClientConnector {
        all[NodeAssignment.node(of: number, nodes: all.count)]
    }
}

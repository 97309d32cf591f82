import ChorusNet

/// One loop's connectors, one per node (a single one without `--servers`): session number
/// i opens on node `NodeAssignment.node(of: i)`. Loop thread only.
final class NodeConnectors {
    let all: [ClientConnector]
    let loop: EventLoop
    let transport: BenchTransport

    init(loop: EventLoop, addresses: [ResolvedAddress], tls: TLSClientContext, transport: BenchTransport) {
        precondition(!addresses.isEmpty, "a run needs at least one node")
        self.loop = loop
        self.transport = transport
        all = addresses.map { ClientConnector(loop: loop, address: $0, tls: tls) }
    }

    var count: Int { all.count }

    /// The connector for the session numbered `number`.
    func connector(for number: Int) -> BenchConnector {
        BenchConnector(client: all[NodeAssignment.node(of: number, nodes: all.count)], transport: transport)
    }
}

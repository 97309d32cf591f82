import ChorusNet

/// How a benchmark session reaches the line protocol (`--transport`): a line session
/// (ALPN `chorus`, lines ending in CR LF), or a WebSocket session (ALPN `http/1.1`,
/// `GET /ws`, then one text frame per line; CONTRACT §9). The workloads are the same
/// either way; only `SessionFraming` differs.
enum BenchTransport: String, Sendable, CaseIterable {
    case line, websocket

    /// What the TLS handshake offers by ALPN.
    var applicationProtocols: [String] {
        switch self {
        case .line: ["chorus"]
        case .websocket: ["http/1.1"]
        }
    }
}

/// A node's connector and the transport its sessions speak.
struct BenchConnector {
    let client: ClientConnector
    let transport: BenchTransport
}

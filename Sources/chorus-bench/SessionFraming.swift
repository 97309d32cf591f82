import ChorusNet

/// The one place where a session's transport shows: how a request line becomes bytes on
/// the wire, and how the server's bytes become lines. A line session ends each request
/// with CR LF and splits what it reads at LF; a WebSocket session first sends the
/// upgrade, masks each request into a text frame, and reads one JSON line per frame.
/// Everything above it (tags, replies, events, the workloads) is the same for both.
struct SessionFraming {
    private var lines = LineSplitter()
    private var webSocket: WebSocketClientCodec?

    init(_ connector: BenchConnector) {
        if connector.transport == .websocket {
            webSocket = WebSocketClientCodec(host: connector.client.address.host, port: connector.client.address.port)
        }
    }

    /// What goes out before the first request: the upgrade request, or nothing.
    var opening: [UInt8] { webSocket?.upgradeRequest ?? [] }

    /// Sends `line` (a request without its line end) on `connection`; `line` may be
    /// changed (a line session appends CR LF in place).
    mutating func send(_ line: inout [UInt8], on connection: ClientConnection) {
        if webSocket != nil {
            connection.send(webSocket!.textFrame(line))
        } else {
            line.append(0x0D)
            line.append(0x0A)
            connection.send(line)
        }
    }

    /// Calls `each` for every complete line in `bytes`, CR LF or frame removed. The
    /// result is nil, or why the connection cannot go on; control frames are answered here.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, answering connection: ClientConnection,
                       _ each: (UnsafeRawBufferPointer) -> Void) -> String? {
        guard webSocket != nil else {
            lines.feed(bytes, each)
            return nil
        }
        let feedback = webSocket!.feed(bytes, each)
        if !feedback.reply.isEmpty { connection.send(feedback.reply) }
        return feedback.failure
    }
}

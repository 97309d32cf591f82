import ChorusNet
import ChorusProtocol
import ChorusWeb

/// A session's WebSocket side (CONTRACT §9): its frame decoder, the text message decoded
/// ahead of its turn, and the closing handshake. The session above it is a line session
/// in JSON mode: each message is one request line, each reply and event one frame.
/// Loop thread only.
final class WebSocketLink {
    private var decoder: WebSocketFrameDecoder
    /// A whole message decoded but not yet run: control frames before it were answered
    /// as they came, the ones after it wait until it is taken.
    private var staged: [UInt8]?
    /// A close frame went out; nothing else may follow it.
    private(set) var closeSent = false
    /// A ping went out in the current quiet spell (`SessionTable.scheduleIdleCheck`).
    var pingOutstanding = false

    init(maxMessageBytes: Int) {
        decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessageBytes)
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        decoder.append(bytes)
    }

    /// Whether a text message is ready to run. Decodes up to it, answering pings, taking
    /// pongs as activity (`heard`), and closing on a close frame or a broken frame.
    func hasMessage(on connection: Connection, heard: () -> Void) -> Bool {
        while staged == nil && connection.isOpen {
            guard let input = decoder.next() else { return false }
            switch input {
            case .text(let message):
                staged = message
            case .ping(let payload):
                if !closeSent { connection.send(WebSocketFrameEncoder.pong(payload)) }
            case .pong:
                pingOutstanding = false
                heard()
            case .close(let code, _):
                // Answered with the same code (RFC 6455 §5.5.1), or 1000 for an empty close.
                sendClose(code.flatMap(WebSocketCloseCode.init(rawValue:)) ?? .normal, on: connection)
                connection.closeAfterFlush()
            case .failure(let code):
                sendClose(code, on: connection)
                connection.closeAfterFlush()
            }
        }
        return staged != nil
    }

    /// The staged message as a line for the request parser.
    func takeMessage() -> LineFramer.Frame? {
        guard let message = staged else { return nil }
        staged = nil
        return .line(message)
    }

    /// Sends a close frame once; the caller closes the connection after it.
    func sendClose(_ code: WebSocketCloseCode, on connection: Connection) {
        guard !closeSent else { return }
        closeSent = true
        connection.send(WebSocketFrameEncoder.close(code))
    }

    /// Pings a quiet peer; its pong counts as activity.
    func ping(on connection: Connection) {
        guard !closeSent else { return }
        pingOutstanding = true
        connection.send(WebSocketFrameEncoder.ping([]))
    }
}

@available(*, unavailable)
extension WebSocketLink: Sendable {}

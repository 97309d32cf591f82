import ChorusNet
import ChorusProtocol

/// One client session: a TLS connection plus the line protocol on top of it.
///
/// Every request gets a numeric tag; the server answers one request at a time and in
/// order, so replies are matched against a FIFO of handlers and the tag is checked. Many
/// requests may be in flight (pipelining); what the window is, the caller decides.
/// Events go to `onEvent` as raw line views. How lines travel (CR LF, or WebSocket
/// frames) is `SessionFraming`'s business. Loop thread only.
final class BenchSession: ClientConnectionDelegate {
    typealias ReplyHandler = (ReplyLine) -> Void

    private struct Pending {
        let tag: UInt64
        let handler: ReplyHandler
    }

    /// The handshake finished.
    var onOpen: (() -> Void)?
    /// An event line (JSON `"type":"event"` or text `* ...`, the greeting included), with
    /// the time its bytes were read (`BenchClock`): every line of one read arrived together.
    var onEvent: ((UnsafeRawBufferPointer, UInt64) -> Void)?
    /// The connection ended; requests still in flight get no reply.
    var onClose: ((String) -> Void)?

    private(set) var connection: ClientConnection?
    private(set) var closeReason: String?
    private var framing: SessionFraming
    private var pending = FIFOQueue<Pending>()
    private var nextTag: UInt64 = 1
    private var scratch: [UInt8] = []

    /// Starts connecting; requests may be queued at once and leave after the handshake.
    init(connector: BenchConnector) throws {
        framing = SessionFraming(connector)
        connection = try connector.client.connect(delegate: self)
        let opening = framing.opening
        if !opening.isEmpty { connection?.send(opening) }
    }

    var inFlight: Int { pending.count }
    var isOpen: Bool { connection?.isOpen ?? false }

    /// Sends `@TAG command` and calls `handler` with its final reply.
    func request(_ command: String, _ handler: @escaping ReplyHandler) {
        request(building: { $0.append(contentsOf: command.utf8) }, handler)
    }

    /// Like `request(_:_:)`, with the command written straight into the output bytes.
    func request(building command: (inout [UInt8]) -> Void, _ handler: @escaping ReplyHandler) {
        guard let connection, !connection.isClosed else { return }
        let tag = nextTag
        nextTag += 1
        scratch.removeAll(keepingCapacity: true)
        scratch.append(UInt8(ascii: "@"))
        DecimalBytes.append(tag, to: &scratch)
        scratch.append(UInt8(ascii: " "))
        command(&scratch)
        pending.append(Pending(tag: tag, handler: handler))
        framing.send(&scratch, on: connection)
    }

    func close() {
        connection?.close(reason: "closed by the benchmark")
    }

    // MARK: ClientConnectionDelegate

    func clientConnectionDidOpen(_ connection: ClientConnection) {
        onOpen?()
    }

    func clientConnection(_ connection: ClientConnection, didReceive bytes: UnsafeRawBufferPointer) {
        let readAt = BenchClock.now()
        // The connection holds this session for the call; a plain capture cost a retain
        // per WebSocket message (on the slow path: the delegate is weak, so there is a side table).
        let session = Unmanaged.passUnretained(self)
        if let failure = framing.feed(bytes, answering: connection, { line in
            session._withUnsafeGuaranteedRef { $0.handle(line, readAt: readAt) }
        }) {
            connection.close(reason: failure)
        }
    }

    func clientConnectionDidClose(_ connection: ClientConnection, reason: String) {
        closeReason = reason
        pending.removeAll()
        let handler = onClose
        onClose = nil
        onOpen = nil
        onEvent = nil
        handler?(reason)
    }

    // MARK: Lines

    private func handle(_ line: UnsafeRawBufferPointer, readAt: UInt64) {
        switch ServerLine.classify(line) {
        case .event:
            onEvent?(line, readAt)
        case .body:
            break
        case .reply(let ok, let tag):
            guard let expected = pending.first else {
                protocolError("a reply nobody asked for: \(String(decoding: line, as: UTF8.self))")
                return
            }
            guard tag == expected.tag else {
                protocolError("reply tagged \(tag.map(String.init) ?? "-") while waiting for \(expected.tag): \(String(decoding: line, as: UTF8.self))")
                return
            }
            _ = pending.popFirst()
            expected.handler(ReplyLine(ok: ok, bytes: line))
        }
    }

    private func protocolError(_ message: String) {
        connection?.close(reason: "protocol error: \(message)")
    }
}

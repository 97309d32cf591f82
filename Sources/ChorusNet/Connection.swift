import CLinux
import COpenSSL
import Foundation

/// What a connection tells its owner. Called on the loop thread.
public protocol ConnectionDelegate: AnyObject {
    /// The TLS handshake finished.
    func connectionDidOpen(_ connection: Connection)
    /// Decrypted bytes arrived.
    func connection(_ connection: Connection, didReceive bytes: UnsafeRawBufferPointer)
    /// The connection is gone; no further calls follow.
    func connectionDidClose(_ connection: Connection, reason: String)
}

/// A close that a limit forced, rather than either side finishing: logged and counted.
public enum LimitClose: String, Sendable, CaseIterable {
    /// Queued output passed `--sendq`.
    case sendq
    /// Queued output waited `--send-timeout` with the socket taking nothing.
    case sendTimeout = "send_timeout"
    /// No line for `--idle-timeout`.
    case idle
    /// No TLS handshake and first line within `--handshake-timeout`.
    case handshakeTimeout = "handshake_timeout"
}

/// One accepted TLS connection on a non-blocking socket, owned by one event loop.
///
/// It handshakes, reads while its owner wants input, and queues output, writing it at the
/// end of the loop turn so everything queued in one turn leaves in one `SSL_write`. The
/// SSL calls and the epoll interest are `TLSChannel`'s; this adds the server's states,
/// pausing, the send-queue limit and closing after a flush.
public final class Connection {
    private enum State { case handshaking, open, closing, closed }

    public let id: UInt64
    public let peerHost: String
    public weak var delegate: ConnectionDelegate?
    /// Output bytes allowed to wait before the connection is dropped (`--sendq`).
    public var maxQueuedBytes: Int
    /// Seconds queued output may wait with the socket taking nothing before the connection
    /// is closed (`--send-timeout`; 0: never). A client that stops reading otherwise keeps
    /// its queue (up to `--sendq`, or one long reply) until the idle timeout.
    public var sendTimeout = 0.0
    /// The limit that closed (or is closing) this connection, if one did; the first wins.
    public private(set) var limitClose: LimitClose?

    private let channel: TLSChannel
    private unowned let loop: EventLoop
    private let readBuffer: ReadBuffer
    private var state = State.handshaking
    private var flushScheduled = false
    /// The owner asked not to read (a command in flight, the rate limit).
    private var ownerPaused = false
    /// The output queue is past half of `maxQueuedBytes`: reading waits until it drains,
    /// so a client that does not read its replies cannot make the server queue more.
    private var outputPaused = false
    private var readingPaused: Bool { ownerPaused || outputPaused }
    /// A stall check is scheduled: output has been waiting for the socket.
    private var stallCheckArmed = false
    /// While armed: when the socket last took output, or the output started waiting.
    private var outputMovedAt: UInt64 = 0

    /// Makes an accepted socket a TLS connection owned by `loop` (call on that loop) and
    /// starts watching it. Nil when OpenSSL or epoll refuse; the socket is closed then.
    public static func open(_ accepted: AcceptedSocket, on loop: EventLoop, maxQueuedBytes: Int) -> Connection? {
        loop.assertOnLoop()
        guard let ssl = accepted.tls.makeSession(fd: accepted.fd) else {
            Glibc.close(accepted.fd)
            return nil
        }
        let connection = Connection(id: accepted.id, fd: accepted.fd, ssl: ssl, peerHost: accepted.host, loop: loop,
                                    readBuffer: loop.readBuffer, maxQueuedBytes: maxQueuedBytes)
        do {
            try connection.start()
        } catch {
            connection.close(reason: "cannot watch socket")
            return nil
        }
        return connection
    }

    /// Closes a socket that will never become a connection (the server is full or closing).
    public static func refuse(_ accepted: AcceptedSocket) {
        Glibc.close(accepted.fd)
    }

    init(id: UInt64, fd: Int32, ssl: OpaquePointer, peerHost: String, loop: EventLoop, readBuffer: ReadBuffer, maxQueuedBytes: Int) {
        self.id = id
        self.channel = TLSChannel(fd: fd, ssl: ssl, interest: EPOLLIN.rawValue)
        self.peerHost = peerHost
        self.loop = loop
        self.readBuffer = readBuffer
        self.maxQueuedBytes = maxQueuedBytes
    }

    deinit {
        if state != .closed { channel.free() }
    }

    /// Starts watching the socket; the handshake begins when the client speaks.
    func start() throws {
        try loop.register(channel.fd, events: channel.interest) { [unowned self] events in self.handle(events) }
    }

    public var isOpen: Bool { state == .open }
    public var queuedBytes: Int { channel.queuedBytes }
    /// The negotiated protocol, e.g. "TLSv1.3".
    public var protocolVersion: String { String(cString: SSL_get_version(channel.ssl)) }
    /// The application protocol ALPN chose in the handshake (`chorus`, `http/1.1`); nil
    /// when the client offered none the server speaks.
    public var applicationProtocol: String? {
        var buffer = [CChar](repeating: 0, count: 32)
        guard copenssl_alpn_selected(channel.ssl, &buffer, UInt32(buffer.count)) > 0 else { return nil }
        return String(cString: buffer)
    }

    // MARK: Output

    /// Queues bytes; they are written at the end of this loop turn. Over `maxQueuedBytes`
    /// the connection is closed at once and the queue dropped: a slow reader never makes
    /// anyone else wait.
    public func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { send($0) }
    }

    /// The same, from borrowed bytes: fan-out hands every recipient the one rendering of
    /// an event without retaining it once per recipient.
    public func send(_ bytes: UnsafeBufferPointer<UInt8>) {
        enqueue(bytes, asReply: false)
    }

    /// Queues the answer to one of the session's own requests. Unlike an event, a reply
    /// may take the queue past `maxQueuedBytes` when the queue was at most half full
    /// before it: the client has been reading and asked for this (a long TASKS list, a
    /// calendar), and closing the connection would only make it ask again. A client that
    /// stops reading has its input paused at half (and pipelined replies after that count
    /// as usual), so at most one reply waits past the limit.
    public func sendReply(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { enqueue($0, asReply: true) }
    }

    private func enqueue(_ bytes: UnsafeBufferPointer<UInt8>, asReply: Bool) {
        guard state == .open || state == .handshaking else { return }
        let replyFromAReader = asReply && queuedBytes <= maxQueuedBytes / 2
        channel.queue(bytes)
        guard withinQueueLimit(replyFromAReader: replyFromAReader) else { return }
        scheduleFlush()
    }

    /// Writes `bytes` at once, straight from the caller's buffer, when nothing is queued
    /// ahead of them and no end-of-turn flush is due; otherwise (or for what the socket
    /// does not take) the same as `send`. For fan-out at the turn's end: a member's run of
    /// events then goes to OpenSSL without first being copied into its queue.
    public func sendNow(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard state == .open, !flushScheduled, channel.queuedBytes == 0, !channel.writeNeedsReadable else {
            send(bytes)
            return
        }
        switch channel.writeDirect(bytes) {
        case .finished:
            return
        case .waiting:
            guard withinQueueLimit() else { return }
            watchForStall()
            updateInterest()
        case .failed(let reason):
            close(reason: reason)
        }
    }

    /// After output was queued: past `maxQueuedBytes` the connection is closed (false),
    /// unless this was a reply to a client that was keeping up (`sendReply`); past half,
    /// reading pauses until the queue drains.
    private func withinQueueLimit(replyFromAReader: Bool = false) -> Bool {
        if queuedBytes > maxQueuedBytes && !replyFromAReader {
            close(reason: "send queue over \(maxQueuedBytes) bytes", limit: .sendq)
            return false
        }
        if !outputPaused && queuedBytes > maxQueuedBytes / 2 {
            outputPaused = true
            updateInterest()
        }
        return true
    }

    /// Writes what is queued, then closes with a TLS close_notify. `limit`: the limit
    /// this close enforces, for the owner to log.
    public func closeAfterFlush(limit: LimitClose? = nil) {
        guard state == .open || state == .handshaking else { return }
        if limitClose == nil { limitClose = limit }
        state = .closing
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard !flushScheduled else { return }
        flushScheduled = true
        loop.flushAtEndOfTurn(self)
    }

    private func flush() {
        guard state == .open || state == .closing else { return }
        let before = channel.queuedBytes
        let outcome = channel.writeQueued()
        if stallCheckArmed && channel.queuedBytes < before { outputMovedAt = MonotonicTime.nanoseconds() }
        switch outcome {
        case .finished: break
        case .waiting:
            watchForStall()
            updateInterest()
            return
        case .failed(let reason):
            close(reason: reason)
            return
        }
        if outputPaused {
            outputPaused = false
            if state == .open && !readingPaused {
                // Input that arrived meanwhile may already sit inside OpenSSL.
                loop.atEndOfTurn { [self] in readAvailable() }
            }
        }
        if state == .closing {
            _ = SSL_shutdown(channel.ssl)
            close(reason: "closed")
            return
        }
        updateInterest()
    }

    /// Output is waiting for the socket: unless already watched, check in `sendTimeout`
    /// seconds that the socket took something meanwhile.
    private func watchForStall() {
        guard sendTimeout > 0, !stallCheckArmed else { return }
        stallCheckArmed = true
        outputMovedAt = MonotonicTime.nanoseconds()
        checkStall(after: sendTimeout)
    }

    /// Open (or closing after a flush) with output the socket has not taken yet.
    private var outputWaiting: Bool {
        (state == .open || state == .closing) && channel.queuedBytes > 0
    }

    private func checkStall(after seconds: Double) {
        // The timer holds the connection until it fires, at most `sendTimeout` after it
        // closed: a weak reference would put every later retain of it on Swift's slow path.
        loop.schedule(after: seconds) { [self] in
            // Epoll calls a socket writable only once half its buffer is free, so a client
            // reading slowly may have made room that no event announced: try to use it.
            if outputWaiting { flush() }
            guard outputWaiting else {
                stallCheckArmed = false
                return
            }
            let waited = Double(MonotonicTime.nanoseconds() - outputMovedAt) / 1e9
            if waited >= sendTimeout {
                close(reason: "send timeout: the client took no output for \(Int(sendTimeout)) s", limit: .sendTimeout)
            } else {
                checkStall(after: sendTimeout - waited)
            }
        }
    }

    // MARK: Input

    /// Stops reading: bytes wait in the kernel, which pushes back on the client.
    public func pauseReading() {
        guard !ownerPaused else { return }
        ownerPaused = true
        updateInterest()
    }

    public func resumeReading() {
        guard ownerPaused else { return }
        ownerPaused = false
        guard !readingPaused else { return }
        updateInterest()
        // OpenSSL may already hold decrypted bytes that epoll will never announce.
        if state == .open && SSL_pending(channel.ssl) > 0 {
            loop.atEndOfTurn { [self] in readAvailable() }
        }
    }

    private func handle(_ events: UInt32) {
        if state == .handshaking {
            handshake()
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            if channel.readNeedsWritable { readAvailable() }
            if state == .open || state == .closing { flush() }
        }
        if events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            if channel.writeNeedsReadable { flush() }
            if !readingPaused || events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { readAvailable() }
        }
    }

    private func handshake() {
        switch channel.handshake() {
        case .finished:
            state = .open
            updateInterest()
            if queuedBytes > 0 { scheduleFlush() }
            delegate?.connectionDidOpen(self)
            if state == .open { readAvailable() }
        case .waiting:
            updateInterest()
        case .failed(let reason):
            close(reason: reason)
        }
    }

    /// Reads while there is input and the owner wants it. A bounded number of records per
    /// turn keeps one busy client from starving the others.
    private func readAvailable() {
        channel.beginReading()
        var rounds = 0
        while state == .open && !readingPaused {
            if rounds == 16 {
                loop.atEndOfTurn { [self] in readAvailable() }
                return
            }
            rounds += 1
            switch channel.read(into: readBuffer) {
            case .bytes(let count):
                delegate?.connection(self, didReceive: UnsafeRawBufferPointer(start: readBuffer.pointer, count: count))
            case .waiting:
                updateInterest()
                return
            case .closedByPeer:
                close(reason: "client closed")
                return
            case .failed(let reason):
                close(reason: reason)
                return
            }
        }
    }

    private func updateInterest() {
        guard state != .closed else { return }
        let wantsInput = state == .handshaking ? !channel.readNeedsWritable : !readingPaused
        channel.updateInterest(on: loop, wantsInput: wantsInput, flushScheduled: flushScheduled, always: EPOLLRDHUP.rawValue)
    }

    // MARK: Closing

    /// Closes now, dropping queued output. The delegate hears about it once.
    public func close(reason: String, limit: LimitClose? = nil) {
        guard state != .closed else { return }
        if limitClose == nil { limitClose = limit }
        state = .closed
        channel.close(on: loop)
        delegate?.connectionDidClose(self, reason: reason)
        delegate = nil
    }
}

extension Connection: TurnFlushing {
    func flushQueued() {
        flushScheduled = false
        flush()
    }
}

@available(*, unavailable)
extension Connection: Sendable {}

/// The loop's one scratch buffer for reads: each read is handed on before the next.
final class ReadBuffer {
    let capacity = 16_384
    let pointer: UnsafeMutableRawPointer

    init() {
        pointer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        pointer.deallocate()
    }
}

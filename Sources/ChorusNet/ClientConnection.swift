import CLinux
import COpenSSL
import Foundation

/// What a client connection tells its owner. Called on the loop thread.
public protocol ClientConnectionDelegate: AnyObject {
    /// TCP and the TLS handshake are done.
    func clientConnectionDidOpen(_ connection: ClientConnection)
    /// Decrypted bytes arrived; valid only during the call.
    func clientConnection(_ connection: ClientConnection, didReceive bytes: UnsafeRawBufferPointer)
    /// The connection is gone (refused, handshake failed, closed by either side); no
    /// further calls follow.
    func clientConnectionDidClose(_ connection: ClientConnection, reason: String)
}

/// The client side of one TLS connection on a non-blocking socket, owned by one event loop.
///
/// The mirror of `Connection`, over the same `TLSChannel`: it connects, handshakes, always
/// reads, and writes what was queued during a loop turn in one `SSL_write` at the end of
/// the turn.
public final class ClientConnection {
    private enum State { case connecting, handshaking, open, closed }

    public weak var delegate: ClientConnectionDelegate?

    private let channel: TLSChannel
    private unowned let loop: EventLoop
    private let readBuffer: ReadBuffer
    private var state = State.connecting
    private var flushScheduled = false

    init(fd: Int32, ssl: OpaquePointer, loop: EventLoop, readBuffer: ReadBuffer) {
        self.channel = TLSChannel(fd: fd, ssl: ssl, interest: EPOLLOUT.rawValue)
        self.loop = loop
        self.readBuffer = readBuffer
    }

    deinit {
        if state != .closed { channel.free() }
    }

    /// Watches the socket for the end of the TCP connect.
    func start() throws {
        try loop.register(channel.fd, events: channel.interest) { [unowned self] events in self.handle(events) }
    }

    public var isOpen: Bool { state == .open }
    public var isClosed: Bool { state == .closed }
    public var queuedBytes: Int { channel.queuedBytes }
    /// The negotiated protocol, e.g. "TLSv1.3" (after the handshake).
    public var protocolVersion: String { String(cString: SSL_get_version(channel.ssl)) }
    /// The negotiated cipher suite (after the handshake).
    public var cipherName: String {
        guard let cipher = SSL_get_current_cipher(channel.ssl) else { return "none" }
        return String(cString: SSL_CIPHER_get_name(cipher))
    }

    // MARK: Output

    /// Queues bytes for the end of this loop turn (or for right after the handshake).
    public func send(_ bytes: [UInt8]) {
        guard state != .closed else { return }
        bytes.withUnsafeBufferPointer { channel.queue($0) }
        scheduleFlush()
    }

    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard state != .closed else { return }
        channel.queue(bytes)
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard state == .open, !flushScheduled else { return }
        flushScheduled = true
        loop.flushAtEndOfTurn(self)
    }

    private func flush() {
        guard state == .open else { return }
        if case .failed(let reason) = channel.writeQueued() {
            tearDown(notifyingPeer: false, reason: reason)
            return
        }
        updateInterest()
    }

    // MARK: Events

    private func handle(_ events: UInt32) {
        switch state {
        case .connecting:
            // A stale event for a reused descriptor number must not end the connect early.
            if events & (EPOLLOUT.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 { finishConnect() }
        case .handshaking:
            handshake()
        case .open:
            if events & EPOLLOUT.rawValue != 0 {
                if channel.readNeedsWritable { readAvailable() }
                flush()
            }
            if state == .open && events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                if channel.writeNeedsReadable { flush() }
                readAvailable()
            }
        case .closed:
            break
        }
    }

    private func finishConnect() {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(channel.fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 {
            tearDown(notifyingPeer: false, reason: "connect failed: \(String(cString: strerror(error)))")
            return
        }
        state = .handshaking
        handshake()
    }

    private func handshake() {
        switch channel.handshake() {
        case .finished:
            state = .open
            if queuedBytes > 0 { scheduleFlush() }
            updateInterest()
            delegate?.clientConnectionDidOpen(self)
            if state == .open { readAvailable() }
        case .waiting:
            updateInterest()
        case .failed(let reason):
            tearDown(notifyingPeer: false, reason: reason)
        }
    }

    /// Reads what OpenSSL can give; a bounded number of reads per turn so one busy
    /// connection does not starve the rest of the loop.
    private func readAvailable() {
        channel.beginReading()
        var rounds = 0
        while state == .open {
            if rounds == 16 {
                loop.atEndOfTurn { [self] in readAvailable() }
                return
            }
            rounds += 1
            switch channel.read(into: readBuffer) {
            case .bytes(let count):
                delegate?.clientConnection(self, didReceive: UnsafeRawBufferPointer(start: readBuffer.pointer, count: count))
                // Nothing left inside OpenSSL: stop here rather than spend a read() on
                // EAGAIN. The epoll interest is level-triggered, so bytes still in the
                // kernel wake this connection again.
                if state == .open && SSL_has_pending(channel.ssl) == 0 {
                    updateInterest()
                    return
                }
            case .waiting:
                updateInterest()
                return
            case .closedByPeer:
                tearDown(notifyingPeer: false, reason: "server closed")
                return
            case .failed(let reason):
                tearDown(notifyingPeer: false, reason: reason)
                return
            }
        }
    }

    private func updateInterest() {
        guard state != .closed else { return }
        if state == .connecting {
            channel.setInterest(EPOLLOUT.rawValue, on: loop)
        } else {
            channel.updateInterest(on: loop, wantsInput: !channel.readNeedsWritable, flushScheduled: flushScheduled)
        }
    }

    // MARK: Closing

    /// Closes now: a best-effort close_notify, then the socket. Queued output is dropped.
    /// The delegate hears about it once.
    public func close(reason: String) {
        tearDown(notifyingPeer: state == .open, reason: reason)
    }

    /// After a failed read or write OpenSSL forbids SSL_shutdown, so errors skip it.
    private func tearDown(notifyingPeer: Bool, reason: String) {
        guard state != .closed else { return }
        if notifyingPeer { _ = SSL_shutdown(channel.ssl) }
        state = .closed
        channel.close(on: loop)
        delegate?.clientConnectionDidClose(self, reason: reason)
        delegate = nil
    }
}

extension ClientConnection: TurnFlushing {
    func flushQueued() {
        flushScheduled = false
        flush()
    }
}

@available(*, unavailable)
extension ClientConnection: Sendable {}

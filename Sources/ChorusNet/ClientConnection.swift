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
/// The mirror of `Connection`: it connects, handshakes, always reads, and writes what was
/// queued during a loop turn in one `SSL_write` at the end of the turn. When OpenSSL wants
/// the other direction to finish a read or a write, the epoll interest follows it.
public final class ClientConnection {
    private enum State { case connecting, handshaking, open, closed }

    public weak var delegate: ClientConnectionDelegate?

    private let fd: Int32
    private let ssl: OpaquePointer
    private unowned let loop: EventLoop
    private let readBuffer: ReadBuffer
    private var state = State.connecting
    private var output: [UInt8] = []
    private var outputStart = 0
    private var flushScheduled = false
    private var readNeedsWritable = false
    private var writeNeedsReadable = false
    private var interest: UInt32 = 0

    init(fd: Int32, ssl: OpaquePointer, loop: EventLoop, readBuffer: ReadBuffer) {
        self.fd = fd
        self.ssl = ssl
        self.loop = loop
        self.readBuffer = readBuffer
    }

    deinit {
        if state != .closed {
            SSL_free(ssl)
            Glibc.close(fd)
        }
    }

    /// Watches the socket for the end of the TCP connect.
    func start() throws {
        interest = EPOLLOUT.rawValue
        try loop.register(fd, events: interest) { [unowned self] events in self.handle(events) }
    }

    public var isOpen: Bool { state == .open }
    public var isClosed: Bool { state == .closed }
    public var queuedBytes: Int { output.count - outputStart }
    /// The negotiated protocol, e.g. "TLSv1.3" (after the handshake).
    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }
    /// The negotiated cipher suite (after the handshake).
    public var cipherName: String {
        guard let cipher = SSL_get_current_cipher(ssl) else { return "none" }
        return String(cString: SSL_CIPHER_get_name(cipher))
    }

    // MARK: Output

    /// Queues bytes for the end of this loop turn (or for right after the handshake).
    public func send(_ bytes: [UInt8]) {
        guard state != .closed else { return }
        output.append(contentsOf: bytes)
        scheduleFlush()
    }

    public func send(_ bytes: UnsafeRawBufferPointer) {
        guard state != .closed else { return }
        output.append(contentsOf: bytes)
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard state == .open, !flushScheduled else { return }
        flushScheduled = true
        loop.flushAtEndOfTurn(self)
    }

    private func flush() {
        guard state == .open else { return }
        writeNeedsReadable = false
        while outputStart < output.count {
            let written = output.withUnsafeBytes { buffer in
                SSL_write(ssl, buffer.baseAddress! + outputStart, Int32(clamping: buffer.count - outputStart))
            }
            if written > 0 {
                outputStart += Int(written)
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE:
                updateInterest()
                return
            case SSL_ERROR_WANT_READ:
                writeNeedsReadable = true
                updateInterest()
                return
            default:
                tearDown(notifyingPeer: false, reason: "write failed: \(OpenSSLError.drainOrErrno())")
                return
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 65_536)
        outputStart = 0
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
                if readNeedsWritable { readAvailable() }
                flush()
            }
            if state == .open && events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                if writeNeedsReadable { flush() }
                readAvailable()
            }
        case .closed:
            break
        }
    }

    private func finishConnect() {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        if error != 0 {
            tearDown(notifyingPeer: false, reason: "connect failed: \(String(cString: strerror(error)))")
            return
        }
        state = .handshaking
        handshake()
    }

    private func handshake() {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            state = .open
            readNeedsWritable = false
            if queuedBytes > 0 { scheduleFlush() }
            updateInterest()
            delegate?.clientConnectionDidOpen(self)
            if state == .open { readAvailable() }
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            readNeedsWritable = false
            updateInterest()
        case SSL_ERROR_WANT_WRITE:
            readNeedsWritable = true
            updateInterest()
        default:
            tearDown(notifyingPeer: false, reason: "TLS handshake failed: \(OpenSSLError.drainOrErrno())")
        }
    }

    /// Reads what OpenSSL can give; a bounded number of reads per turn so one busy
    /// connection does not starve the rest of the loop.
    private func readAvailable() {
        readNeedsWritable = false
        var rounds = 0
        while state == .open {
            if rounds == 16 {
                loop.atEndOfTurn { [self] in readAvailable() }
                return
            }
            rounds += 1
            let count = SSL_read(ssl, readBuffer.pointer, Int32(readBuffer.capacity))
            if count > 0 {
                delegate?.clientConnection(self, didReceive: UnsafeRawBufferPointer(start: readBuffer.pointer, count: Int(count)))
                // Nothing left inside OpenSSL: stop here rather than spend a read() on
                // EAGAIN. The epoll interest is level-triggered, so bytes still in the
                // kernel wake this connection again.
                if state == .open && SSL_has_pending(ssl) == 0 {
                    updateInterest()
                    return
                }
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ:
                updateInterest()
                return
            case SSL_ERROR_WANT_WRITE:
                readNeedsWritable = true
                updateInterest()
                return
            case SSL_ERROR_ZERO_RETURN:
                tearDown(notifyingPeer: false, reason: "server closed")
                return
            case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
                tearDown(notifyingPeer: false, reason: "connection reset")
                return
            default:
                tearDown(notifyingPeer: false, reason: "read failed: \(OpenSSLError.drainOrErrno())")
                return
            }
        }
    }

    private func updateInterest() {
        guard state != .closed else { return }
        var wanted: UInt32 = 0
        if state == .connecting {
            wanted = EPOLLOUT.rawValue
        } else {
            if !readNeedsWritable || writeNeedsReadable { wanted |= EPOLLIN.rawValue }
            if readNeedsWritable || (outputStart < output.count && !writeNeedsReadable && !flushScheduled) {
                wanted |= EPOLLOUT.rawValue
            }
        }
        if wanted != interest {
            interest = wanted
            loop.modify(fd, events: wanted)
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
        if notifyingPeer { _ = SSL_shutdown(ssl) }
        state = .closed
        loop.unregister(fd)
        SSL_free(ssl)
        Glibc.close(fd)
        output = []
        outputStart = 0
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

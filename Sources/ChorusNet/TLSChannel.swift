import CLinux
import COpenSSL
import Foundation

/// The OpenSSL half of one non-blocking TLS socket, shared by the server's `Connection`
/// and the benchmark's `ClientConnection`: the output queued for the end of the turn, the
/// SSL calls and what their errors mean, which direction OpenSSL is waiting for, and the
/// epoll interest that follows from that. The owner keeps its own states and tells its
/// delegate what happened. A class, held by `let`: a struct inside the owner would cost
/// an exclusivity check on the owner per call, and `queue` runs once per delivery.
///
/// OpenSSL may want the opposite direction from the one asked for (WANT_READ during a
/// write, WANT_WRITE during a read or a handshake); `readNeedsWritable` and
/// `writeNeedsReadable` remember it, and the interest asks epoll for that direction.
final class TLSChannel {
    enum Step {
        /// All done: the handshake finished, or every queued byte went to the socket.
        case finished
        /// OpenSSL waits for the socket; the interest now says which way.
        case waiting
        case failed(String)
    }

    enum ReadStep {
        case bytes(Int)
        case waiting
        /// The peer sent close_notify.
        case closedByPeer
        case failed(String)
    }

    let fd: Int32
    let ssl: OpaquePointer
    private var output: [UInt8] = []
    private var outputStart = 0
    private(set) var readNeedsWritable = false
    private(set) var writeNeedsReadable = false
    private(set) var interest: UInt32

    init(fd: Int32, ssl: OpaquePointer, interest: UInt32) {
        self.fd = fd
        self.ssl = ssl
        self.interest = interest
    }

    var queuedBytes: Int { output.count - outputStart }

    func queue(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(contentsOf: bytes)
    }

    func queue(_ bytes: UnsafeRawBufferPointer) {
        output.append(contentsOf: bytes)
    }

    /// Hands the queued output to `SSL_write` until it is all written or OpenSSL waits.
    func writeQueued() -> Step {
        writeNeedsReadable = false
        while outputStart < output.count {
            let written = output.withUnsafeBytes { buffer in
                SSL_write(ssl, buffer.baseAddress! + outputStart, Int32(clamping: buffer.count - outputStart))
            }
            if written > 0 {
                outputStart += Int(written)
                continue
            }
            return stoppedWrite(SSL_get_error(ssl, written))
        }
        output.removeAll(keepingCapacity: output.capacity <= 65_536)
        outputStart = 0
        return .finished
    }

    /// Hands `bytes` to `SSL_write` from the caller's buffer; nothing may be queued. What
    /// OpenSSL does not take is queued, to be retried from the queue (the context accepts
    /// a moved buffer with the same bytes).
    func writeDirect(_ bytes: UnsafeBufferPointer<UInt8>) -> Step {
        writeNeedsReadable = false
        var offset = 0
        while offset < bytes.count {
            let written = SSL_write(ssl, bytes.baseAddress! + offset, Int32(clamping: bytes.count - offset))
            if written > 0 {
                offset += Int(written)
                continue
            }
            let error = SSL_get_error(ssl, written)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset...]))
            return stoppedWrite(error)
        }
        return .finished
    }

    /// What an `SSL_write` that took nothing means: OpenSSL waits for the socket (which
    /// way is remembered for the interest), or the connection failed.
    private func stoppedWrite(_ error: Int32) -> Step {
        switch error {
        case SSL_ERROR_WANT_WRITE:
            return .waiting
        case SSL_ERROR_WANT_READ:
            writeNeedsReadable = true
            return .waiting
        default:
            return .failed("write failed: \(OpenSSLError.drainOrErrno())")
        }
    }

    /// One step of the handshake.
    func handshake() -> Step {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            readNeedsWritable = false
            return .finished
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            readNeedsWritable = false
            return .waiting
        case SSL_ERROR_WANT_WRITE:
            readNeedsWritable = true
            return .waiting
        default:
            return .failed("TLS handshake failed: \(OpenSSLError.drainOrErrno())")
        }
    }

    /// Called before a round of reads: a read that waited on writability is being retried.
    func beginReading() {
        readNeedsWritable = false
    }

    /// One `SSL_read` into the loop's buffer.
    func read(into buffer: ReadBuffer) -> ReadStep {
        let count = SSL_read(ssl, buffer.pointer, Int32(buffer.capacity))
        if count > 0 { return .bytes(Int(count)) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ:
            return .waiting
        case SSL_ERROR_WANT_WRITE:
            readNeedsWritable = true
            return .waiting
        case SSL_ERROR_ZERO_RETURN:
            return .closedByPeer
        case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
            return .failed("connection reset")
        default:
            return .failed("read failed: \(OpenSSLError.drainOrErrno())")
        }
    }

    /// Asks epoll for what the channel needs now: input when the owner wants it or a write
    /// waits on readability; output when a read waits on writability, or when queued output
    /// waits for the socket rather than for the end of the turn (`flushScheduled`).
    func updateInterest(on loop: EventLoop, wantsInput: Bool, flushScheduled: Bool, always: UInt32 = 0) {
        var wanted = always
        if wantsInput || writeNeedsReadable { wanted |= EPOLLIN.rawValue }
        if readNeedsWritable || (outputStart < output.count && !writeNeedsReadable && !flushScheduled) {
            wanted |= EPOLLOUT.rawValue
        }
        setInterest(wanted, on: loop)
    }

    func setInterest(_ wanted: UInt32, on loop: EventLoop) {
        guard wanted != interest else { return }
        interest = wanted
        loop.modify(fd, events: wanted)
    }

    /// Stops watching the socket, frees the session and closes the socket; queued output is dropped.
    func close(on loop: EventLoop) {
        loop.unregister(fd)
        free()
        output = []
        outputStart = 0
    }

    /// Frees the session and closes the socket (for an owner that goes away still open).
    func free() {
        SSL_free(ssl)
        Glibc.close(fd)
    }
}

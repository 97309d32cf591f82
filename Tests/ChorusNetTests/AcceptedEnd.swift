import ChorusLocking
import ChorusNet

/// The server's end: the listener, the connection it accepted, and what that
/// connection told its delegate.
final class AcceptedEnd: ConnectionDelegate, @unchecked Sendable {
    // Safety: `listener` and `connection` are only touched on the loop thread; what the
    // delegate heard sits behind a lock for the test's thread to read.

    struct Record: Sendable {
        var opened = false
        var received: [UInt8] = []
        var closeReason: String?
        var limit: LimitClose?

        var receivedText: String { String(decoding: received, as: UTF8.self) }
        var closed: Bool { closeReason != nil }
    }

    let heard = Locked(Record())
    var listener: Listener?
    var connection: Connection?
    /// The accepted socket, for peeking at what waits in it unread.
    var fd: Int32 = -1

    func connectionDidOpen(_ connection: Connection) {
        heard.withLock { $0.opened = true }
    }

    func connection(_ connection: Connection, didReceive bytes: UnsafeRawBufferPointer) {
        heard.withLock { $0.received.append(contentsOf: bytes) }
    }

    func connectionDidClose(_ connection: Connection, reason: String) {
        let limit = connection.limitClose
        heard.withLock {
            $0.closeReason = reason
            $0.limit = limit
        }
    }
}

import ChorusClient
import ChorusCrypto
import ChorusLocking
@testable import ChorusNet
import Foundation
import Testing

/// One real TLS connection over loopback: an `EventLoop` on its own thread with a
/// `Listener`, the `Connection` it made of the one socket it accepted, and a blocking
/// `LineClient` as the peer. Tests drive the connection on its loop (`onConnection`) and
/// read what its delegate heard (`record`, `waitFor`).
final class LoopbackConnection {
    let client: LineClient
    private let loop: EventLoop
    private let server: AcceptedEnd
    private let folder: String
    private let loopFinished = DispatchSemaphore(value: 0)

    /// `smallSendBuffer`: the server's socket send buffer is set to 16 KiB (the kernel
    /// doubles that) instead of growing to megabytes, so output the peer does not read
    /// stays queued in the connection after a few hundred KiB.
    init(maxQueuedBytes: Int, sendTimeout: Double = 0, smallSendBuffer: Bool = false) throws {
        Sockets.ignoreSIGPIPE()
        folder = NSTemporaryDirectory() + "chorus-net-test-" + SecureRandom.hex(6)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try SelfSignedCertificate.create(certificatePath: folder + "/server.crt", keyPath: folder + "/server.key")
        let tls = try TLSServerContext(certificatePath: folder + "/server.crt", keyPath: folder + "/server.key")

        let loop = try EventLoop()
        self.loop = loop
        let finished = loopFinished
        let thread = Thread {
            loop.run()
            finished.signal()
        }
        thread.name = "chorus-net-test-loop"
        thread.start()

        let server = AcceptedEnd()
        self.server = server
        let port = try Self.onLoop(loop) {
            let listener = try Listener(host: "127.0.0.1", port: 0, loop: loop, tls: tls) { [unowned loop] accepted in
                if smallSendBuffer { Self.shrinkSendBuffer(accepted.fd) }
                guard let connection = Connection.open(accepted, on: loop, maxQueuedBytes: maxQueuedBytes) else { return }
                connection.sendTimeout = sendTimeout
                connection.delegate = server
                server.connection = connection
                server.fd = accepted.fd
            }
            try listener.start()
            server.listener = listener
            return listener.port
        }
        client = try LineClient(port: port, trust: .insecure)
        guard waitFor({ $0.opened }) else { throw NetError("no TLS handshake on the accepted socket") }
    }

    deinit {
        client.close()
        try? Self.onLoop(loop) { [server] in
            server.connection?.close(reason: "test over")
            server.listener?.close()
            server.connection = nil
            server.listener = nil
        }
        loop.stop()
        if loopFinished.wait(timeout: .now() + 30) == .timedOut {
            Issue.record("the test's event loop did not stop within 30 s")
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    // MARK: Driving the connection

    /// Runs `body` with the connection on the loop thread and returns its result. The
    /// loop writes what `body` queued at the end of that turn.
    @discardableResult
    func onConnection<T: Sendable>(_ body: @escaping @Sendable (Connection) -> T) throws -> T {
        try Self.onLoop(loop) { [server] in
            guard let connection = server.connection else { throw NetError("no connection accepted") }
            return body(connection)
        }
    }

    /// Runs `body` on `loop`'s thread, waiting for it.
    private static func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            let outcome = Result { try body() }
            result.withLock { $0 = outcome }
            done.signal()
        }
        guard done.wait(timeout: .now() + 30) == .success else {
            throw NetError("the event loop did not run the job within 30 s")
        }
        return try result.withLock { $0! }.get()
    }

    // MARK: What the delegate heard

    var record: AcceptedEnd.Record { server.heard.withLock { $0 } }

    /// Waits (up to `timeout` seconds) until `condition` holds for what was heard; false
    /// if it never did.
    @discardableResult
    func waitFor(timeout: Double = 10, _ condition: (AcceptedEnd.Record) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if server.heard.withLock({ condition($0) }) { return true }
            usleep(5_000)
        }
        return false
    }

    /// The peer's bytes have reached the server's socket and wait there, unread. Checked
    /// on the loop, so when it says yes, the loop's next turn sees the socket readable.
    private func bytesWaitInTheSocket() throws -> Bool {
        try Self.onLoop(loop) { [server] in
            var byte: UInt8 = 0
            return recv(server.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
        }
    }

    /// Waits until the peer's bytes sit unread in the server's socket, then lets the loop
    /// finish one more turn: a connection that was reading would have read them by then.
    func waitUntilBytesWaitUnread() throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try bytesWaitInTheSocket() {
                try Self.onLoop(loop) {}
                return true
            }
            usleep(5_000)
        }
        return false
    }

    /// The client's receive buffer keeps its default: shrunk below loopback's 64 KiB
    /// segments, a TLS record trickles through in window probes, a second or more per
    /// record, and even a steady reader looks stalled.
    private static func shrinkSendBuffer(_ fd: Int32) {
        var size: Int32 = 16_384
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
}

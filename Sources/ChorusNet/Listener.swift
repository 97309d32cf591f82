import CLinux
import Foundation

/// A socket just accepted, not yet TLS: it may be handed to another loop, which then
/// makes it a `Connection` with `Connection.open`.
public struct AcceptedSocket: Sendable {
    public let id: UInt64
    let fd: Int32
    public let host: String
    /// The certificate in use when it was accepted (SIGHUP may replace it later).
    let tls: TLSServerContext
}

/// A listening TCP socket on an event loop that hands each accepted socket to `onAccept`.
public final class Listener {
    public let port: Int
    private let fd: Int32
    private unowned let loop: EventLoop
    /// New connections use this; `replaceTLS` swaps it (SIGHUP) without touching open ones,
    /// which keep a reference to the context they were made with.
    private var tls: TLSServerContext
    private let onAccept: (AcceptedSocket) -> Void
    private var nextConnectionID: UInt64 = 0
    private var paused = false
    private var closed = false

    /// Binds now (so a busy port fails at start); call `start()` on the loop thread.
    public init(host: String, port: Int, loop: EventLoop, tls: TLSServerContext,
                onAccept: @escaping (AcceptedSocket) -> Void) throws {
        let bound = try Sockets.listen(host: host, port: port)
        self.fd = bound.fd
        self.port = bound.port
        self.loop = loop
        self.tls = tls
        self.onAccept = onAccept
    }

    deinit {
        if !closed { Glibc.close(fd) }
    }

    public func start() throws {
        try loop.register(fd, events: EPOLLIN.rawValue) { [unowned self] _ in self.acceptAll() }
    }

    public func replaceTLS(_ context: TLSServerContext) {
        tls = context
    }

    /// Stops accepting; connections already made are not touched.
    public func close() {
        guard !closed else { return }
        closed = true
        loop.unregister(fd)
        Glibc.close(fd)
    }

    private func acceptAll() {
        while !closed {
            let accepted: (fd: Int32, host: String)?
            do {
                accepted = try Sockets.accept(fd)
            } catch let error as NetError {
                if error.errno == EMFILE || error.errno == ENFILE || error.errno == ENOBUFS || error.errno == ENOMEM {
                    pauseAccepting(because: error)
                }
                return
            } catch {
                return
            }
            guard let accepted else { return }
            nextConnectionID += 1
            onAccept(AcceptedSocket(id: nextConnectionID, fd: accepted.fd, host: accepted.host, tls: tls))
        }
    }

    /// Out of descriptors: stop watching the listener for a moment instead of spinning on
    /// a readable socket we cannot accept, then try again.
    private func pauseAccepting(because error: NetError) {
        guard !paused else { return }
        paused = true
        LogWriter.standardError.write("chorusd: \(error.message); pausing accepts for 100 ms")
        loop.modify(fd, events: 0)
        loop.schedule(after: 0.1) { [weak self] in
            guard let self, !self.closed else { return }
            self.paused = false
            self.loop.modify(self.fd, events: EPOLLIN.rawValue)
        }
    }
}

@available(*, unavailable)
extension Listener: Sendable {}

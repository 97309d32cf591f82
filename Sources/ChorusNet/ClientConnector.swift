import CLinux
import COpenSSL
import Foundation

/// Opens TLS client connections to one server on one event loop.
///
/// It holds what the connections share: the resolved address, the TLS context and the
/// loop's read buffer (each read is handed on before the next, so one buffer serves all).
public final class ClientConnector {
    public let loop: EventLoop
    public let address: ResolvedAddress
    private let tls: TLSClientContext
    private let readBuffer = ReadBuffer()

    public init(loop: EventLoop, address: ResolvedAddress, tls: TLSClientContext) {
        self.loop = loop
        self.address = address
        self.tls = tls
    }

    /// Starts a connection (TCP connect, then the TLS handshake); `delegate` hears when it
    /// opens or fails. Bytes sent before it opens leave right after the handshake.
    /// Loop thread only.
    public func connect(delegate: ClientConnectionDelegate) throws -> ClientConnection {
        loop.assertOnLoop()
        let fd = try address.startConnect()
        guard let ssl = tls.makeSession(fd: fd, address: address) else {
            Glibc.close(fd)
            throw NetError("cannot create TLS session: \(OpenSSLError.drain())")
        }
        let connection = ClientConnection(fd: fd, ssl: ssl, loop: loop, readBuffer: readBuffer)
        connection.delegate = delegate
        do {
            try connection.start()
        } catch {
            connection.delegate = nil
            connection.close(reason: "cannot watch socket: \(error)")
            throw error
        }
        return connection
    }
}

@available(*, unavailable)
extension ClientConnector: Sendable {}

import ChorusLocking
import Foundation
import ChorusTestSupport

/// A TCP proxy in front of a PostgreSQL server that, once armed, passes the next COMMIT
/// on to the server and then cuts the client off before the server's answer reaches it:
/// the transaction commits, and the client cannot know. Everything else is relayed as is.
final class CommitCuttingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    /// Set to cut at the next COMMIT; cleared when it does.
    let armed = Locked(false)
    let cuts = Locked(0)
    /// While set, new connections are closed at once, as by a server that is down.
    let refusing = Locked(false)

    init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        port = try FreePort.next()
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            close(listener)
            throw ProxyFailed(description: "the proxy cannot listen on \(port): errno \(errno)")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    struct ProxyFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Stops accepting; relayed connections end when their ends close.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// One relayed connection: once `cutting`, the server's bytes are dropped.
    private final class Pair: Sendable {
        let client: Int32, server: Int32
        let cutting = Locked(false)
        init(client: Int32, server: Int32) { self.client = client; self.server = server }
        func end() {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            if refusing.withLock({ $0 }) {
                close(client)
                continue
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            let pair = Pair(client: client, server: server)
            Thread { [self] in relayClient(pair) }.start()
            Thread { Self.relayServer(pair) }.start()
        }
    }

    private func relayClient(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let commit = Array("COMMIT".utf8)
        while true {
            let count = read(pair.client, &buffer, buffer.count)
            guard count > 0 else { break }
            let chunk = Array(buffer[0..<count])
            let cut = armed.withLock { armed in
                guard armed, Self.contains(chunk, commit) else { return false }
                armed = false
                return true
            }
            if cut { pair.cutting.withLock { $0 = true } }
            guard Self.writeAll(pair.server, chunk) else { break }
            if cut {
                // Long enough for the server to commit; its answer is dropped meanwhile.
                Thread.sleep(forTimeInterval: 0.3)
                cuts.withLock { $0 += 1 }
                break
            }
        }
        pair.end()
        close(pair.client)
    }

    private static func relayServer(_ pair: Pair) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(pair.server, &buffer, buffer.count)
            guard count > 0 else { break }
            if pair.cutting.withLock({ $0 }) { continue }
            guard writeAll(pair.client, Array(buffer[0..<count])) else { break }
        }
        pair.end()
        close(pair.server)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes[sent...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard wrote > 0 else { return false }
            sent += wrote
        }
        return true
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }
}

import CLinux
import Foundation

/// A server address looked up once, so a client that opens thousands of connections
/// does not ask the resolver thousands of times.
public struct ResolvedAddress: Sendable {
    public let host: String
    public let port: Int
    private let storage: sockaddr_storage
    private let length: socklen_t

    /// Resolves `host` (a name or a numeric address) and `port`; the first answer wins.
    public init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw NetError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        self.host = host
        self.port = port
        self.storage = storage
        self.length = first.pointee.ai_addrlen
    }

    /// True when `host` is written as an IPv4 or IPv6 address: the certificate is then
    /// checked against its IP entries instead of its DNS names.
    public var hostIsNumeric: Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// A non-blocking socket with a connect in progress (or done, on loopback). Nagle is
    /// off: requests are small and a benchmark must not measure a 40 ms delayed ACK.
    public func startConnect() throws -> Int32 {
        let family = Int32(storage.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NetError.system("socket") }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = storage
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if status != 0 && clinux_errno() != EINPROGRESS {
            let error = NetError.system("cannot connect to \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        return fd
    }
}

import ChorusAddresses
import CLinux
import Foundation

/// Socket set-up calls, each wrapped so a failure carries its reason.
public enum Sockets {
    /// A non-blocking listening socket bound to host:port (port 0 picks one). Returns the
    /// descriptor and the port actually bound.
    public static func listen(host: String, port: Int, backlog: Int32 = 1024) throws -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw NetError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }

        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw NetError.system("socket") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let error = NetError.system("cannot bind \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = NetError.system("cannot listen on \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        return (fd, try localPort(fd))
    }

    static func localPort(_ fd: Int32) throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { throw NetError.system("getsockname") }
        return portAndHost(&storage).port
    }

    /// "203.0.113.9" or "2001:db8::1" for a peer, as limits and logs want it.
    static func portAndHost(_ storage: inout sockaddr_storage) -> (host: String, port: Int) {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var ip = address.pointee.sin_addr
                    inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count))
                    return (String(nulTerminated: buffer), Int(UInt16(bigEndian: address.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var ip = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count))
                    return (String(nulTerminated: buffer), Int(UInt16(bigEndian: address.pointee.sin6_port)))
                }
            }
        default:
            return ("unknown", 0)
        }
    }

    /// Accepts one pending connection: nil when none is waiting (EAGAIN).
    static func accept(_ listener: Int32) throws -> (fd: Int32, host: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { clinux_accept_nonblocking(listener, $0, &length) }
        }
        if fd < 0 {
            let code = clinux_errno()
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR || code == ECONNABORTED { return nil }
            throw NetError.system("accept")
        }
        // Replies are small and interactive; Nagle would hold them back ~40 ms.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return (fd, portAndHost(&storage).host)
    }

    /// Lets the process open as many sockets as its hard limit allows.
    public static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A closed peer must not kill the process with SIGPIPE; writes report EPIPE instead.
    public static func ignoreSIGPIPE() {
        signal(SIGPIPE, SIG_IGN)
    }
}

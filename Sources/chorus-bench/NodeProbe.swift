import CLinux
import ChorusNet
import Glibc

/// Checks before a run that every node of `--servers` accepts a TCP connection, so a typo
/// or a node that is down is one clear line up front rather than a set-up failure later.
enum NodeProbe {
    /// Resolves and connects to each node within `timeout` seconds; the first that fails throws.
    static func reachAll(_ nodes: [ServerAddress], timeout: Double = 5) throws {
        for node in nodes { try reach(node, timeout: timeout) }
    }

    static func reach(_ node: ServerAddress, timeout: Double) throws {
        let address: ResolvedAddress
        let fd: Int32
        do {
            address = try ResolvedAddress(host: node.host, port: node.port)
            fd = try address.startConnect()
        } catch {
            throw BenchFailure("--servers: \(error)")
        }
        defer { Glibc.close(fd) }
        var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat {
            ready = poll(&watch, 1, Int32(timeout * 1000))
        } while ready < 0 && clinux_errno() == EINTR
        guard ready > 0 else {
            throw BenchFailure("--servers: cannot connect to \(node): no answer within \(Int(timeout)) s")
        }
        var problem: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length)
        if problem != 0 {
            throw BenchFailure("--servers: cannot connect to \(node): \(String(cString: strerror(problem)))")
        }
    }
}

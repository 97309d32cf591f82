import ChorusLocking
import Foundation

/// Loopback ports for test servers that stop and start again on the same port.
///
/// A port from the kernel's ephemeral range (bind to port 0) can be taken, while its
/// server is down, as the local end of any outgoing connection on the machine (another
/// test's client, a PostgreSQL connection), and then the restart fails with "Address
/// already in use". So ports come from below that range, are checked bindable, and are
/// never handed out twice in one process.
public enum FreePort {
    /// ChorusLocking's lock, which ThreadSanitizer sees: tests ask for ports in parallel.
    private static let handedOut = Locked<Set<Int>>([])

    /// A loopback port nothing is bound to now, outside the ephemeral range.
    public static func next() throws -> Int {
        let (low, _) = ephemeralRange()
        // Below 10000 sit many well-known services; the tests keep clear of them.
        let candidates = 10_000..<max(low, 10_001)
        for _ in 0..<500 {
            let port = Int.random(in: candidates)
            let fresh = handedOut.withLock { ports in ports.insert(port).inserted }
            if fresh, isBindable(port) { return port }
        }
        throw FreePortMissing(description: "no free loopback port between \(candidates.lowerBound) and \(candidates.upperBound)")
    }

    public struct FreePortMissing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The kernel's ephemeral range from /proc, or Linux's default when it cannot be read.
    static func ephemeralRange() -> (Int, Int) {
        guard let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8) else {
            return (32768, 60999)
        }
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2 else { return (32768, 60999) }
        return (numbers[0], numbers[1])
    }

    /// Whether a listener could bind 127.0.0.1:`port` now. No SO_REUSEADDR, so a port
    /// with connections lingering in TIME_WAIT counts as taken too.
    private static func isBindable(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

import Foundation
import Glibc
import Synchronization
import Testing

/// A TCP proxy on a loopback `FreePort` in front of `host:port` (a PostgreSQL server),
/// for faults a test steers while clients stay connected through it:
/// - `cut()` closes every connection it carries, both sides; new ones are taken as before;
/// - `stall()` stops passing bytes either way, sockets kept open, until `resume()`;
///   `stall(applicationName:)` only on the connections whose client's name matches
///   (libpq's `application_name`: one node's event feed, or its writer);
/// - `dropNotifications(true)` drops the server's NotificationResponse messages, so a
///   `LISTEN`er hears nothing while the rest of its traffic flows.
///
/// One thread accepts and one thread per connection passes bytes, each blocked in
/// `poll` (or, stalled, on a condition) until there is something to do. `stop()` or the
/// proxy's release ends them all.
public final class TCPProxy: Sendable {
    public let port: Int
    public let targetHost: String
    public let targetPort: Int
    /// What the threads hold (not the proxy, so releasing the proxy stops them).
    private let core: ProxyCore

    public init(to host: String = "127.0.0.1", port target: Int) throws {
        targetHost = host
        targetPort = target
        core = try ProxyCore(targetHost: host, targetPort: target)
        port = core.port
    }

    deinit { core.stop() }

    /// Connections being passed on now.
    public var connectionCount: Int { core.connectionCount }

    /// Closes both sides of every connection; returns once each is closed.
    public func cut() { core.cut() }

    /// Stops passing bytes in both directions; returns once no connection will pass any more.
    public func stall() { core.stall() }

    /// Stops passing bytes on the connections open now whose `application_name` matches;
    /// returns how many, once none of them will pass any more.
    @discardableResult
    public func stall(applicationName matches: (String) -> Bool) -> Int { core.stall(matching: matches) }

    /// Passes bytes again after `stall()` (either kind).
    public func resume() { core.resume() }

    /// Whether NotificationResponse messages from the server are dropped: from the next
    /// message each connection reads, so a NOTIFY sent after this returns is affected.
    public func dropNotifications(_ drop: Bool) { core.dropping.store(drop, ordering: .sequentiallyConsistent) }

    /// Stops accepting and closes every connection. Safe to call more than once.
    public func stop() { core.stop() }

    public struct ProxyFailure: Error, CustomStringConvertible {
        public let description: String
    }
}

/// The proxy's sockets, threads and state.
private final class ProxyCore: @unchecked Sendable {
    // Safety: the mutable state below is read and written only while `state` is locked;
    // `dropping` is atomic because connection threads read it for every message.
    let port: Int
    let targetHost: String
    let targetPort: Int
    let dropping = Atomic<Bool>(false)
    private let listener: Int32
    private let acceptWake: (read: Int32, write: Int32)
    private let acceptEnded = DispatchSemaphore(value: 0)
    private let state = NSCondition()
    private var stalled = false
    private var stopped = false
    private var links: [ObjectIdentifier: ProxyLink] = [:]

    init(targetHost: String, targetPort: Int) throws {
        self.targetHost = targetHost
        self.targetPort = targetPort
        var lastError = "no port"
        var bound: (fd: Int32, port: Int)?
        for _ in 0..<5 where bound == nil {
            let port = try FreePort.next()
            switch Self.listen(port: port) {
            case .success(let fd): bound = (fd, port)
            case .failure(let error): lastError = error.description
            }
        }
        guard let bound else { throw TCPProxy.ProxyFailure(description: "cannot listen for the proxy: \(lastError)") }
        listener = bound.fd
        port = bound.port
        acceptWake = try Self.makePipe()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "test-proxy-accept"
        thread.start()
    }

    var connectionCount: Int { state.locked { links.count } }

    func cut() {
        state.locked {
            // The links themselves, not their keys: a link accepted after the cut may be
            // allocated where a closed one was, and take its ObjectIdentifier; waiting on
            // keys then waited for a connection that was never cut.
            let cut = Array(links.values)
            for link in cut { link.cut() }
            state.broadcast()
            waitLocked("the cut connections to close") { cut.allSatisfy(\.isClosed) }
        }
    }

    func stall() {
        state.locked {
            stalled = true
            for link in links.values { link.wake() }
            waitLocked("every connection to stall") { !links.values.contains(where: { !$0.parked }) }
        }
    }

    func stall(matching matches: (String) -> Bool) -> Int {
        state.locked {
            let chosen = links.values.filter { $0.applicationName.map(matches) == true }
            for link in chosen {
                link.stalled = true
                link.wake()
            }
            waitLocked("the chosen connections to stall") { !chosen.contains(where: { !$0.parked && !$0.isCut }) }
            return chosen.count
        }
    }

    func resume() {
        state.locked {
            stalled = false
            for link in links.values { link.stalled = false }
            state.broadcast()
        }
    }

    func stop() {
        let first = state.locked {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(acceptWake.write, &byte, 1)
        guard acceptEnded.wait(timeout: .now() + Self.patience) == .success else {
            // The accepting thread may still use the listener and the pipe: they stay open.
            Issue.record("TCPProxy: the accepting thread did not end within \(Int(Self.patience)) s")
            cut()
            return
        }
        cut()
        close(listener)
        close(acceptWake.read)
        close(acceptWake.write)
    }

    /// How long the connection threads get to act on a cut or stall. They never block
    /// (their sockets are non-blocking and a wake-up pipe ends their poll), so this is only
    /// a bound for a loaded machine.
    private static let patience: Double = 30

    /// With `state` locked: waits until `done` holds, for at most `patience` seconds;
    /// records an issue naming `what` if it does not.
    private func waitLocked(_ what: String, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(Self.patience)
        while !done() {
            if !state.wait(until: deadline) && !done() {
                Issue.record("TCPProxy: waited \(Int(Self.patience)) s for \(what)")
                return
            }
        }
    }

    // MARK: - Threads

    private func acceptLoop() {
        defer { acceptEnded.signal() }
        var watched = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: acceptWake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&watched, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || watched[1].revents != 0 { return }
            guard watched[0].revents != 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard let server = Self.connect(host: targetHost, port: targetPort) else {
                close(client)
                continue
            }
            let link = ProxyLink(client: client, server: server)
            let registered = state.locked {
                guard !stopped else { return false }
                links[ObjectIdentifier(link)] = link
                return true
            }
            guard registered else {
                link.closeSockets()
                continue
            }
            let thread = Thread { [self] in pass(link) }
            thread.name = "test-proxy-link"
            thread.start()
        }
    }

    /// Passes bytes between the two sides of `link` until either side closes or it is cut.
    private func pass(_ link: ProxyLink) {
        var filter = PostgresStreamFilter()
        var named = false
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let isNotification: (UInt8) -> Bool = { [self] type in
            type == UInt8(ascii: "A") && dropping.load(ordering: .sequentiallyConsistent)
        }
        loop: while true {
            let go: Bool = state.locked {
                // No deadline: this waits for resume(), cut() or stop(), and the waits for
                // this thread (cut, stall) have theirs.
                while (stalled || link.stalled) && !link.isCut {
                    link.parked = true
                    state.broadcast()
                    state.wait()
                }
                link.parked = false
                return !link.isCut
            }
            guard go else { break }
            var watched = [
                pollfd(fd: link.client, events: Int16(toServer.isEmpty ? POLLIN : 0) | Int16(toClient.isEmpty ? 0 : POLLOUT), revents: 0),
                pollfd(fd: link.server, events: Int16(toClient.isEmpty ? POLLIN : 0) | Int16(toServer.isEmpty ? 0 : POLLOUT), revents: 0),
                pollfd(fd: link.wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&watched, 3, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { break }
            // A wake-up means stall or cut: look at the state before moving another byte.
            if watched[2].revents != 0 {
                link.drainWake()
                continue
            }
            for side in 0..<2 {
                let fd = side == 0 ? link.client : link.server
                let events = Int32(watched[side].revents)
                if events & Int32(POLLOUT) != 0 {
                    let flushed = side == 0 ? Self.flush(&toClient, to: fd) : Self.flush(&toServer, to: fd)
                    guard flushed else { break loop }
                }
                let wantedInput = Int32(watched[side].events) & Int32(POLLIN) != 0
                if wantedInput && events & Int32(POLLIN | POLLHUP | POLLERR) != 0 {
                    let count = read(fd, &chunk, chunk.count)
                    if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                    guard count > 0 else { break loop }
                    if side == 0 {
                        filter.fromClient(chunk[0..<count])
                        if !named, let name = filter.applicationName {
                            named = true
                            state.locked { link.applicationName = name }
                        }
                        toServer += chunk[0..<count]
                    } else {
                        toClient += filter.fromServer(chunk[0..<count], drop: isNotification)
                    }
                } else if events & Int32(POLLERR | POLLNVAL) != 0 {
                    break loop
                }
            }
        }
        state.locked {
            link.closeSockets()
            links[ObjectIdentifier(link)] = nil
            state.broadcast()
        }
    }

    // MARK: - Sockets

    /// Writes what the socket takes now; false when the peer is gone.
    private static func flush(_ pending: inout [UInt8], to fd: Int32) -> Bool {
        let written = pending.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written < 0 { return errno == EAGAIN || errno == EINTR }
        pending.removeFirst(written)
        return true
    }

    private static func listen(port: Int) -> Result<Int32, TCPProxy.ProxyFailure> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(TCPProxy.ProxyFailure(description: "socket: \(String(cString: strerror(errno)))")) }
        var address = loopback(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(TCPProxy.ProxyFailure(description: "port \(port): \(reason)"))
        }
        return .success(fd)
    }

    /// A non-blocking connection to the target, or nil when it refuses.
    private static func connect(host: String, port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = loopback(port: port)
        address.sin_addr.s_addr = inet_addr(host)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A signal (a child process ending, in a test process that starts many) can cut a
        // blocking connect short with EINTR while the connection goes on: wait for it then.
        if connected != 0 {
            guard errno == EINTR, finishConnecting(fd) else {
                close(fd)
                return nil
            }
        }
        return fd
    }

    /// Waits up to 10 s for a connect that a signal interrupted; whether it succeeded.
    private static func finishConnecting(_ fd: Int32) -> Bool {
        var watch = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let deadline = Date().addingTimeInterval(10)
        while true {
            let ready = poll(&watch, 1, 100)
            if ready > 0 { break }
            if (ready < 0 && errno != EINTR) || Date() >= deadline { return false }
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw TCPProxy.ProxyFailure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }

}

extension NSCondition {
    fileprivate func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// One connection through the proxy: the client's socket, the one to the server, and a
/// pipe that wakes its thread out of `poll`. Its flags are guarded by the proxy's lock.
private final class ProxyLink: @unchecked Sendable {
    let client: Int32
    let server: Int32
    let wakeRead: Int32
    private let wakeWrite: Int32
    /// Guarded by the proxy's lock.
    var parked = false
    var stalled = false
    var applicationName: String?
    private(set) var isCut = false
    /// Its sockets are closed: its thread has ended (guarded by the proxy's lock).
    private(set) var isClosed = false

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
        for fd in [client, server] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var on: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        let ends = (try? ProxyCore.makePipe()) ?? (read: -1, write: -1)
        wakeRead = ends.read
        wakeWrite = ends.write
    }

    /// With the proxy's lock held: both peers see the connection end now (shutdown wakes
    /// the thread's poll; the thread closes the descriptors).
    func cut() {
        isCut = true
        guard !isClosed else { return }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
        wake()
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    func drainWake() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &bytes, bytes.count) > 0 {}
    }

    /// With the proxy's lock held (or before the link is shared).
    func closeSockets() {
        guard !isClosed else { return }
        isClosed = true
        isCut = true
        for fd in [client, server, wakeRead, wakeWrite] where fd >= 0 { close(fd) }
    }
}

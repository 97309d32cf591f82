import CLinux
import ChorusLocking
import ChorusNet
import ChorusWeb
import Foundation
import Synchronization

/// `--acme-http-port`: a plain-HTTP listener on its own thread that answers ACME's http-01
/// challenges and nothing else. Off the event loops on purpose: it blocks, but every read
/// and write has a timeout, a request head is bounded, and at most `maxConnections`
/// connections are served at once (each on a short-lived thread), so junk cannot pile up.
final class HTTPChallengeListener: Sendable {
    static let maxConnections = 16
    static let timeoutSeconds = 5

    let port: Int
    private let fd: Int32
    private let answers = Locked<[String: String]>([:])
    private let open = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(host: String, port: Int) throws {
        let bound = try Sockets.listen(host: host, port: port, backlog: 64)
        fd = bound.fd
        self.port = bound.port
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-acme-http")
            acceptUntilStopped()
            finished.signal()
        }
        thread.name = "chorus-acme-http"
        thread.start()
    }

    func answer(token: String, with keyAuthorization: String) {
        answers.withLock { $0[token] = keyAuthorization }
    }

    func forget(token: String) {
        _ = answers.withLock { $0.removeValue(forKey: token) }
    }

    /// Stops accepting and closes the socket (connections being served finish on their own).
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        close(fd)
    }

    /// Polls so `stop` is seen within half a second.
    private func acceptUntilStopped() {
        while !stopped.load(ordering: .acquiring) {
            var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&watch, 1, 500) > 0 else { continue }
            // Linux's accept does not pass O_NONBLOCK on: the client socket blocks, bounded
            // by its timeouts.
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard open.add(1, ordering: .acquiringAndReleasing).newValue <= Self.maxConnections else {
                open.subtract(1, ordering: .acquiringAndReleasing)
                close(client)
                continue
            }
            let thread = Thread { [self] in
                serve(client)
                close(client)
                open.subtract(1, ordering: .acquiringAndReleasing)
            }
            thread.start()
        }
    }

    /// One request, one answer, closed; a client silent for the timeout gets nothing.
    private func serve(_ client: Int32) {
        var limit = timeval(tv_sec: Self.timeoutSeconds, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(Double(Self.timeoutSeconds))
        var parser = HTTPRequestParser(maxHeadBytes: 8 * 1024, maxBodyBytes: 0)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var parsed: HTTPParse?
        while parsed == nil && Date() < deadline {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { break }
            parser.append(buffer[0..<count])
            parsed = parser.next()
        }
        guard parsed != nil else { return }
        let response = HTTPChallengeResponse.bytes(for: parsed, answers: answers.withLock { $0 })
        _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

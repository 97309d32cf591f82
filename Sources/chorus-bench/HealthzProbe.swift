import ChorusNet
import Dispatch
import Foundation
import Synchronization

/// `--healthz MS` (fanout): one keep-alive HTTPS connection (ALPN `http/1.1`), on an
/// event-loop thread of its own, sends `GET /healthz` every MS milliseconds during the
/// measured phase, one request at a time, and times each from its send to the last byte
/// of its response. What a load balancer's health check would see under that load.
final class HealthzProbe: Sendable {
    struct Tally: Sendable {
        var latency = LatencyHistogram()
        var answered = 0
        /// Answers other than 200.
        var notOK = 0
        var failure: String?
    }

    private let loop: EventLoop
    private let client: LoopBound<HealthzClient>
    private let stopped = DispatchSemaphore(value: 0)

    init(address: ResolvedAddress, tls: TLSClientContext, interval: Double) throws {
        loop = try EventLoop()
        client = LoopBound(HealthzClient(connector: ClientConnector(loop: loop, address: address, tls: tls),
                                         interval: interval), loop: loop)
        let (loop, stopped) = (loop, stopped)
        let thread = Thread {
            loop.run()
            stopped.signal()
        }
        thread.name = "bench-healthz"
        thread.start()
    }

    func start() {
        let client = client
        loop.execute { client.value.start() }
    }

    /// Stops polling once the request in flight is answered (the first is sent at
    /// `start`, so every run has at least one), then the thread; what was measured.
    func stop() -> Tally {
        let result = Mutex(Tally())
        let finished = DispatchSemaphore(value: 0)
        let client = client
        loop.execute {
            client.value.finish { tally in
                result.withLock { $0 = tally }
                finished.signal()
            }
        }
        finished.wait()
        loop.stop()
        stopped.wait()
        return result.withLock { $0 }
    }
}

/// The probe's connection and its one request at a time. Loop thread only.
private final class HealthzClient: ClientConnectionDelegate {
    private let connector: ClientConnector
    private let interval: Double
    private let request: [UInt8]
    private var connection: ClientConnection?
    private var input: [UInt8] = []
    private var sentAt: UInt64 = 0
    private var awaitingAnswer = false
    private var finished = false
    private var onFinished: ((HealthzProbe.Tally) -> Void)?
    private var tally = HealthzProbe.Tally()

    init(connector: ClientConnector, interval: Double) {
        self.connector = connector
        self.interval = interval
        request = Array("GET /healthz HTTP/1.1\r\nHost: \(connector.address.host):\(connector.address.port)\r\n\r\n".utf8)
    }

    func start() {
        do {
            connection = try connector.connect(delegate: self)
            send()
        } catch {
            tally.failure = "cannot connect: \(error)"
        }
    }

    func finish(_ completion: @escaping (HealthzProbe.Tally) -> Void) {
        finished = true
        onFinished = completion
        if !awaitingAnswer || connection?.isClosed != false { close("the measured phase is over") }
    }

    private func close(_ reason: String) {
        guard let completion = onFinished else { return }
        onFinished = nil
        connection?.close(reason: reason)
        completion(tally)
    }

    private func send() {
        guard !finished, let connection, !connection.isClosed else { return }
        sentAt = BenchClock.now()
        awaitingAnswer = true
        connection.send(request)
    }

    func clientConnectionDidOpen(_ connection: ClientConnection) {}

    func clientConnection(_ connection: ClientConnection, didReceive bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
        guard let response = HTTPResponseScan.first(in: input) else { return }
        let now = BenchClock.now()
        if now >= sentAt { tally.latency.record(nanoseconds: now - sentAt) }
        tally.answered += 1
        if response.status != 200 { tally.notOK += 1 }
        input.removeFirst(response.length)
        awaitingAnswer = false
        if finished { return close("the measured phase is over") }
        connector.loop.schedule(after: interval) { [weak self] in self?.send() }
    }

    func clientConnectionDidClose(_ connection: ClientConnection, reason: String) {
        // Closed by us only once finished and answered.
        if (!finished || awaitingAnswer) && tally.failure == nil {
            tally.failure = "the /healthz connection closed: \(reason)"
        }
        close(reason)
    }
}

import ChorusAddresses
import ChorusTestSupport
import ChorusOutbound
import Foundation
import Testing

/// The queue against a scripted HTTPS server: retries and their waits, gone and given-up
/// jobs, a stuck server not stalling the rest, the bound, and shutdown.
@Suite struct OutboundQueueTests {
    static let loopback = AddressPolicy(allowing: [try! AddressBlock(parsing: "127.0.0.0/8")])

    static func queue(for server: ScriptedHTTPSServer, workers: Int = 2, capacity: Int = 64,
                      retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelaySeconds: 0.05, maxDelaySeconds: 0.2, maxRetryAfterSeconds: 5),
                      totalTimeoutMilliseconds: Int = 10_000, policy: AddressPolicy = loopback) -> OutboundQueue {
        OutboundQueue(
            settings: OutboundQueue.Settings(workers: workers, capacity: capacity, retry: retry, name: "test-out"),
            client: OutboundClientSettings(policy: policy, caFile: server.certificatePath,
                                           connectTimeoutMilliseconds: 5_000, totalTimeoutMilliseconds: totalTimeoutMilliseconds))
    }

    @Test func aTooManyRequestsIsRetriedAfterItsRetryAfter() throws {
        let server = try ScriptedHTTPSServer { _, index in
            index == 0 ? .respond(status: 429, headers: [("Retry-After", "1")]) : .respond(status: 201)
        }
        let queue = Self.queue(for: server)
        defer { queue.shutdown() }
        let reports = ReportCollector()
        #expect(queue.submit(OutboundRequest(url: server.url("/push/1"), body: [1, 2, 3]), completion: reports.completion("push")) == .accepted)
        #expect(reports.wait(for: 1))
        let report = try #require(reports.entry("push")).report
        #expect(report.outcome.name == "delivered")
        #expect(report.attempts == 2)
        let received = server.received
        #expect(received.count == 2)
        if received.count == 2 {
            #expect(received[1].at.timeIntervalSince(received[0].at) >= 1)
            #expect(received[1].body == [1, 2, 3])
        }
        var expected = OutboundCounters()
        expected.sent = 1
        expected.retried = 1
        #expect(queue.counters == expected)
        #expect(queue.held == 0)
    }

    @Test func aServiceUnavailableForeverIsGivenUpAfterTheLastAttempt() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 503) }
        let queue = Self.queue(for: server)
        defer { queue.shutdown() }
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: server.url("/p")), completion: reports.completion("push"))
        #expect(reports.wait(for: 1))
        let report = try #require(reports.entry("push")).report
        guard case .gaveUp(.status(let status)) = report.outcome else {
            Issue.record("expected gaveUp with a status, got \(report.outcome.name)")
            return
        }
        #expect(status == 503)
        #expect(report.attempts == 3)
        #expect(server.received.count == 3)
        #expect(queue.counters.retried == 2)
        #expect(queue.counters.gaveUp == 1)
        #expect(queue.counters.sent == 0)
    }

    @Test func goneAndRejectedAndRefused() throws {
        let server = try ScriptedHTTPSServer { request, _ in
            switch request.target {
            case "/gone": .respond(status: 410)
            case "/missing": .respond(status: 404)
            default: .respond(status: 400)
            }
        }
        let queue = Self.queue(for: server)
        defer { queue.shutdown() }
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: server.url("/gone")), completion: reports.completion("gone"))
        queue.submit(OutboundRequest(url: server.url("/missing")), completion: reports.completion("missing"))
        queue.submit(OutboundRequest(url: server.url("/bad")), completion: reports.completion("bad"))
        queue.submit(OutboundRequest(url: "http://127.0.0.1:\(server.port)/plain"), completion: reports.completion("plain"))
        #expect(reports.wait(for: 4))
        #expect(reports.entry("gone")?.report.outcome.name == "gone")
        #expect(reports.entry("missing")?.report.outcome.name == "gone")
        #expect(reports.entry("bad")?.report.outcome.name == "rejected")
        #expect(reports.entry("plain")?.report.outcome.name == "refusedByPolicy")
        for label in ["gone", "missing", "bad", "plain"] { #expect(reports.entry(label)?.report.attempts == 1) }
        var expected = OutboundCounters()
        expected.gone = 2
        expected.failed = 1
        expected.refusedByPolicy = 1
        #expect(queue.counters == expected)
        #expect(server.received.count == 3)
    }

    @Test func loopbackWithoutAnAllowEntryIsRefusedByPolicy() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let queue = Self.queue(for: server, policy: AddressPolicy())
        defer { queue.shutdown() }
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: server.url("/p")), completion: reports.completion("p"))
        #expect(reports.wait(for: 1))
        guard case .refusedByPolicy(let error)? = reports.entry("p")?.report.outcome else {
            Issue.record("expected refusedByPolicy")
            return
        }
        #expect(error.kind == .addressRefused)
        #expect(queue.counters.refusedByPolicy == 1)
        #expect(queue.counters.retried == 0)
        #expect(server.received.isEmpty)
    }

    /// A job stuck on a server that never answers holds one worker until its timeout; the
    /// other worker delivers everything else meanwhile.
    @Test func aSilentServerTimesOutWithoutStallingOtherJobs() throws {
        let silent = try ScriptedHTTPSServer { _, _ in .silence }
        let server = try ScriptedHTTPSServer(script: { _, _ in .respond(status: 201) })
        // The handshake with the silent server must pass for its silence to be reached:
        // one CA file trusts both servers.
        let bundle = try TemporaryBundle(silent.certificatePath, server.certificatePath)
        let queue = OutboundQueue(
            settings: OutboundQueue.Settings(workers: 2, capacity: 64, retry: RetryPolicy(maxAttempts: 1), name: "test-out"),
            client: OutboundClientSettings(policy: Self.loopback, caFile: bundle.path, connectTimeoutMilliseconds: 5_000, totalTimeoutMilliseconds: 4_000))
        defer { queue.shutdown() }
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: silent.url("/stuck")), completion: reports.completion("stuck"))
        for index in 0..<6 {
            queue.submit(OutboundRequest(url: server.url("/\(index)")), completion: reports.completion("\(index)"))
        }
        #expect(reports.wait(for: 7))
        let stuck = try #require(reports.entry("stuck"))
        guard case .gaveUp(.error(let error)) = stuck.report.outcome else {
            Issue.record("expected gaveUp with an error, got \(stuck.report.outcome.name)")
            return
        }
        #expect(error.kind == .timedOut)
        for index in 0..<6 {
            let entry = try #require(reports.entry("\(index)"))
            #expect(entry.report.outcome.name == "delivered")
            #expect(entry.at < stuck.at, "job \(index) waited behind the stuck one")
        }
        #expect(queue.counters.sent == 6)
        #expect(queue.counters.gaveUp == 1)
    }

    /// A job waiting out its Retry-After holds no worker: with one worker, a job submitted
    /// after it is delivered before it.
    @Test func aWaitingRetryDoesNotHoldTheWorker() throws {
        let server = try ScriptedHTTPSServer { request, _ in
            request.target == "/later" ? .respond(status: 503, headers: [("Retry-After", "30")]) : .respond(status: 201)
        }
        let queue = Self.queue(for: server, workers: 1, retry: RetryPolicy(maxAttempts: 3, maxRetryAfterSeconds: 60))
        defer { queue.shutdown() }
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: server.url("/later")), completion: reports.completion("later"))
        // Wait until the first attempt was answered before submitting the next job.
        while server.received.isEmpty { usleep(10_000) }
        queue.submit(OutboundRequest(url: server.url("/now")), completion: reports.completion("now"))
        #expect(reports.wait(for: 1))
        #expect(reports.all.first?.label == "now")
        #expect(queue.held == 1)
        queue.shutdown()
        #expect(reports.wait(for: 2))
        #expect(reports.entry("later")?.report.outcome.name == "abandoned")
        #expect(reports.entry("later")?.report.attempts == 1)
        #expect(queue.counters.abandoned == 1)
    }

    @Test func aFullQueueRefusesAtOnce() throws {
        let server = try ScriptedHTTPSServer { _, _ in .silence }
        let queue = Self.queue(for: server, workers: 1, capacity: 2, retry: RetryPolicy(maxAttempts: 1), totalTimeoutMilliseconds: 1_000)
        let reports = ReportCollector()
        #expect(queue.submit(OutboundRequest(url: server.url("/1")), completion: reports.completion("1")) == .accepted)
        #expect(queue.submit(OutboundRequest(url: server.url("/2")), completion: reports.completion("2")) == .accepted)
        #expect(queue.submit(OutboundRequest(url: server.url("/3")), completion: reports.completion("3")) == .full)
        #expect(queue.submit(OutboundRequest(url: server.url("/4")), completion: reports.completion("4")) == .full)
        #expect(queue.counters.droppedFull == 2)
        queue.shutdown()
        // Every accepted job ends exactly once: sent to the silent server and timed out,
        // or abandoned unsent; the refused ones never report.
        #expect(reports.wait(for: 2))
        #expect(reports.all.count == 2)
        #expect(Set(reports.all.map(\.label)) == ["1", "2"])
        for entry in reports.all {
            #expect(["gaveUp", "abandoned"].contains(entry.report.outcome.name))
        }
        #expect(queue.submit(OutboundRequest(url: server.url("/5")), completion: reports.completion("5")) == .shutDown)
        #expect(queue.held == 0)
    }

    @Test func shutdownWithNothingToDoEndsTheThreads() throws {
        let server = try ScriptedHTTPSServer { _, _ in .respond(status: 201) }
        let queue = Self.queue(for: server)
        let reports = ReportCollector()
        queue.submit(OutboundRequest(url: server.url("/p")), completion: reports.completion("p"))
        #expect(reports.wait(for: 1))
        queue.shutdown()
        queue.shutdown()
        #expect(queue.submit(OutboundRequest(url: server.url("/q")), completion: reports.completion("q")) == .shutDown)
        #expect(queue.counters.sent == 1)
    }
}

/// Several servers' certificates in one CA file.
final class TemporaryBundle {
    let path: String

    init(_ files: String...) throws {
        path = NSTemporaryDirectory() + "chorus-test-bundle-" + UUID().uuidString.prefix(12).lowercased() + ".pem"
        var text = ""
        for file in files { text += try String(contentsOfFile: file, encoding: .utf8) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

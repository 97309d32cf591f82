import ChorusTestSupport
import ChorusLocking
import ChorusOutbound
import Dispatch
import Foundation
import Testing

/// The mail queue against real aiosmtpd servers: delivery from its own threads, a
/// deferral retried until the last attempt, a refusal never retried, the bound, shutdown.
@Suite(.enabled(if: LocalSMTPServer.isUsable, "needs python3-aiosmtpd (.ci/run installs it)"))
struct MailQueueTests {
    static func queue(for server: LocalSMTPServer, scheme: String = "smtp", workers: Int = 2, capacity: Int = 16,
                      totalTimeoutMilliseconds: Int = 10_000) throws -> MailQueue {
        let smtp = try MailSenderTests.settings(server, scheme: scheme, totalTimeoutMilliseconds: totalTimeoutMilliseconds)
        return MailQueue(settings: OutboundQueue.Settings(workers: workers, capacity: capacity,
                                                          retry: RetryPolicy(maxAttempts: 3, baseDelaySeconds: 0.05, maxDelaySeconds: 0.2),
                                                          name: "test-mail"),
                         smtp: smtp)
    }

    @Test func messagesAreDeliveredFromTheQueuesThreads() throws {
        let server = try LocalSMTPServer(tls: .startTLS)
        let queue = try Self.queue(for: server)
        defer { queue.shutdown() }
        let reports = MailReports()
        for index in 0..<3 {
            #expect(queue.submit(MailSenderTests.message(subject: "Notice \(index)"), completion: reports.completion) == .accepted)
        }
        #expect(reports.wait(for: 3))
        #expect(reports.all.allSatisfy { $0.outcome.name == "delivered" && $0.attempts == 1 })
        #expect(server.received.count == 3)
        var expected = MailCounters()
        expected.sent = 3
        #expect(queue.counters == expected)
        #expect(queue.held == 0)
    }

    @Test func aDeferralIsRetriedUntilTheLastAttempt() throws {
        let server = try LocalSMTPServer(tls: .implicit, behaviour: .defer)
        let queue = try Self.queue(for: server, scheme: "smtps")
        defer { queue.shutdown() }
        let reports = MailReports()
        queue.submit(MailSenderTests.message(), completion: reports.completion)
        #expect(reports.wait(for: 1))
        let report = try #require(reports.all.first)
        guard case .gaveUp(let error) = report.outcome else {
            Issue.record("expected gaveUp, got \(report.outcome.name)")
            return
        }
        #expect(error.replyCode == 451)
        #expect(report.attempts == 3)
        #expect(queue.counters.retried == 2)
        #expect(queue.counters.gaveUp == 1)
    }

    @Test func aRefusalIsNotRetried() throws {
        let server = try LocalSMTPServer(tls: .startTLS, behaviour: .refuseRecipient)
        let queue = try Self.queue(for: server)
        defer { queue.shutdown() }
        let reports = MailReports()
        queue.submit(MailSenderTests.message(), completion: reports.completion)
        #expect(reports.wait(for: 1))
        let report = try #require(reports.all.first)
        #expect(report.outcome.name == "rejected")
        #expect(report.attempts == 1)
        #expect(queue.counters.failed == 1)
        #expect(queue.counters.retried == 0)
    }

    @Test func theBoundHoldsAndShutdownEndsEverything() throws {
        let server = try LocalSMTPServer(tls: .startTLS, behaviour: .stall)
        let queue = try Self.queue(for: server, workers: 1, capacity: 1, totalTimeoutMilliseconds: 1_000)
        let reports = MailReports()
        #expect(queue.submit(MailSenderTests.message(), completion: reports.completion) == .accepted)
        #expect(queue.submit(MailSenderTests.message(), completion: reports.completion) == .full)
        let started = Date()
        queue.shutdown()
        // The send in flight ends by its own timeout; its retry is abandoned.
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(reports.wait(for: 1, upTo: 5))
        #expect(reports.all.first?.outcome.name == "abandoned")
        #expect(queue.counters.droppedFull == 1)
        #expect(queue.counters.abandoned == 1)
        #expect(queue.held == 0)
        #expect(queue.submit(MailSenderTests.message(), completion: reports.completion) == .shutDown)
    }
}

/// The reports a mail queue's completions deliver, with a way to wait for them.
final class MailReports: Sendable {
    private let reports = Locked<[MailReport]>([])
    private let arrived = DispatchSemaphore(value: 0)

    var completion: MailQueue.Completion {
        { [self] report in
            reports.withLock { $0.append(report) }
            arrived.signal()
        }
    }

    var all: [MailReport] { reports.withLock { $0 } }

    /// Waits until `count` reports have come (the bound only keeps a broken queue from hanging the run).
    func wait(for count: Int, upTo seconds: Double = 60) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while all.count < count {
            guard arrived.wait(timeout: deadline) == .success else { return false }
        }
        return true
    }
}

extension MailOutcome {
    var name: String {
        switch self {
        case .delivered: "delivered"
        case .rejected: "rejected"
        case .failed: "failed"
        case .gaveUp: "gaveUp"
        case .abandoned: "abandoned"
        }
    }
}

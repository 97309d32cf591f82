import CLinux
import Dispatch
import Foundation
import ChorusLocking

/// Outbound mail off every event loop (CONTRACT §10), shaped like `OutboundQueue`: the
/// same settings (workers, bound, `RetryPolicy`) and admission answers, worker threads of
/// its own each with its own `MailSender`, 4xx and broken connections retried with
/// backoff, 5xx and settings failures ended at once. A message waiting for its retry
/// holds no worker: workers sleep until the earliest one is due.
public final class MailQueue: Sendable {
    public typealias Completion = @Sendable (MailReport) -> Void

    private struct Job {
        let message: MailMessage
        let completion: Completion
        var attempts = 0
    }

    private struct Waiting {
        /// DispatchTime's uptime nanoseconds: monotonic.
        let due: UInt64
        let job: Job
    }

    private struct State {
        var ready: [Job] = []
        /// Kept sorted by `due`.
        var waiting: [Waiting] = []
        var held = 0
        var stopping = false
        var counters = MailCounters()
    }

    public let settings: OutboundQueue.Settings
    private let state = Locked(State())
    /// Signalled for each new or due job and at shutdown; workers also wake at a due time.
    private let wake = DispatchSemaphore(value: 0)
    private let threadsEnded = DispatchSemaphore(value: 0)
    private let smtp: SMTPSettings
    private let jitter: @Sendable () -> Double

    public init(settings: OutboundQueue.Settings, smtp: SMTPSettings,
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.settings = settings
        self.smtp = smtp
        self.jitter = jitter
        for index in 0..<max(1, settings.workers) {
            let name = "\(settings.name)-\(index)"
            let thread = Thread { [self] in
                clinux_set_thread_name(name)
                work()
                threadsEnded.signal()
            }
            thread.name = name
            thread.start()
        }
    }

    /// Takes a message, or refuses it at once; never blocks. `completion` runs exactly
    /// once, on a queue thread (or the caller of `shutdown`), when the message's job ends.
    @discardableResult
    public func submit(_ message: MailMessage, completion: @escaping Completion) -> OutboundQueue.Admission {
        let admission = state.withLock { state -> OutboundQueue.Admission in
            guard !state.stopping else { return .shutDown }
            guard state.held < settings.capacity else {
                state.counters.droppedFull += 1
                return .full
            }
            state.held += 1
            state.ready.append(Job(message: message, completion: completion))
            return .accepted
        }
        if admission == .accepted { wake.signal() }
        return admission
    }

    public var counters: MailCounters {
        state.withLock { $0.counters }
    }

    /// Messages held now (waiting, sending, or waiting to be retried).
    public var held: Int {
        state.withLock { $0.held }
    }

    /// Refuses new messages, ends every one not being sent as `abandoned` at once, lets
    /// each send in flight finish (its timeouts bound it), and returns when every worker
    /// has ended. A second call returns at once.
    public func shutdown() {
        let dropped = state.withLock { state -> [Job]? in
            guard !state.stopping else { return nil }
            state.stopping = true
            let dropped = state.ready + state.waiting.map(\.job)
            state.ready = []
            state.waiting = []
            state.held -= dropped.count
            state.counters.abandoned += dropped.count
            return dropped
        }
        guard let dropped else { return }
        for job in dropped {
            job.completion(MailReport(outcome: .abandoned, attempts: job.attempts))
        }
        for _ in 0..<max(1, settings.workers) { wake.signal() }
        for _ in 0..<max(1, settings.workers) { threadsEnded.wait() }
    }

    // MARK: Workers

    private func work() {
        var sender: MailSender?
        var senderError: MailError?
        do throws(MailError) { sender = try MailSender(settings: smtp) } catch { senderError = error }
        while var job = nextJob() {
            job.attempts += 1
            var failure: MailError?
            if let sender {
                do throws(MailError) { try sender.send(job.message) } catch { failure = error }
            } else {
                failure = senderError ?? MailError(.other, server: smtp.server, "no sender")
            }
            settle(job, failure: failure)
        }
    }

    /// The next message to send, moving due retries to the ready list first; nil once
    /// the queue is stopping.
    private func nextJob() -> Job? {
        while true {
            let next = state.withLock { state -> (job: Job?, due: UInt64?, stop: Bool) in
                if state.stopping { return (nil, nil, true) }
                let now = DispatchTime.now().uptimeNanoseconds
                while let first = state.waiting.first, first.due <= now {
                    state.ready.append(state.waiting.removeFirst().job)
                }
                if !state.ready.isEmpty { return (state.ready.removeFirst(), nil, false) }
                return (nil, state.waiting.first?.due, false)
            }
            if let job = next.job { return job }
            if next.stop { return nil }
            if let due = next.due {
                _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: due))
            } else {
                wake.wait()
            }
        }
    }

    /// Ends the job, or schedules its next attempt, as `DeliveryVerdict` judges the failure.
    private func settle(_ job: Job, failure: MailError?) {
        guard let failure else { return finish(job, .delivered) }
        switch DeliveryVerdict.judge(mailError: failure) {
        case .retry:
            if let delay = settings.retry.delay(afterAttempt: job.attempts, retryAfterSeconds: nil, jitter: jitter()) {
                schedule(job, afterSeconds: delay)
            } else {
                finish(job, .gaveUp(failure))
            }
        case .rejected: finish(job, .rejected(failure))
        case .delivered, .gone, .refusedByPolicy, .failed: finish(job, .failed(failure))
        }
    }

    private func finish(_ job: Job, _ outcome: MailOutcome) {
        state.withLock { state in
            state.held -= 1
            switch outcome {
            case .delivered: state.counters.sent += 1
            case .rejected, .failed: state.counters.failed += 1
            case .gaveUp: state.counters.gaveUp += 1
            case .abandoned: state.counters.abandoned += 1
            }
        }
        job.completion(MailReport(outcome: outcome, attempts: job.attempts))
    }

    /// Puts the job back to wait for its retry, or ends it as abandoned when stopping.
    private func schedule(_ job: Job, afterSeconds seconds: Double) {
        let due = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        let scheduled = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            let index = state.waiting.firstIndex { $0.due > due } ?? state.waiting.count
            state.waiting.insert(Waiting(due: due, job: job), at: index)
            state.counters.retried += 1
            return true
        }
        // Another worker may be asleep until a later due time.
        if scheduled { wake.signal() } else { finish(job, .abandoned) }
    }
}

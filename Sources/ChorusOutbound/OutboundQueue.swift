import CLinux
import Dispatch
import Foundation
import ChorusLocking

/// Outbound deliveries off every event loop and the database thread (CONTRACT §10): a
/// bounded queue, worker threads of its own each with its own `OutboundClient`, and a
/// timer thread that holds jobs waiting to be retried so they never occupy a worker.
public final class OutboundQueue: Sendable {
    public typealias Completion = @Sendable (DeliveryReport) -> Void

    public struct Settings: Sendable {
        /// Worker threads, each sending one request at a time.
        public var workers: Int
        /// Jobs held at once: waiting, being sent, or waiting to be retried.
        public var capacity: Int
        public var retry: RetryPolicy
        public var name: String

        public init(workers: Int = 2, capacity: Int = 1024, retry: RetryPolicy = RetryPolicy(), name: String = "chorus-out") {
            self.workers = workers
            self.capacity = capacity
            self.retry = retry
            self.name = name
        }
    }

    /// Whether `submit` took the job.
    public enum Admission: Sendable, Equatable {
        case accepted
        /// At capacity: the job was dropped and counted; the caller counts its own drop.
        case full
        case shutDown
    }

    private struct Job {
        let request: OutboundRequest
        let completion: Completion
        var attempts = 0
    }

    private struct Waiting {
        /// DispatchTime's uptime nanoseconds: monotonic, unmoved by wall-clock changes.
        let due: UInt64
        let job: Job
    }

    private struct State {
        var ready: [Job] = []
        var readyHead = 0
        /// Kept sorted by `due`; the bound keeps it small enough for a sorted insert.
        var waiting: [Waiting] = []
        var held = 0
        var stopping = false
        var counters = OutboundCounters()
    }

    public let settings: Settings
    private let state = Locked(State())
    private let jobsReady = DispatchSemaphore(value: 0)
    private let timerWake = DispatchSemaphore(value: 0)
    private let threadsEnded = DispatchSemaphore(value: 0)
    private let makeTransport: @Sendable () throws(OutboundError) -> any OutboundTransport
    private let wallClock: @Sendable () -> Date
    private let jitter: @Sendable () -> Double

    /// `makeTransport` runs once on each worker thread; `wallClock` reads Retry-After
    /// dates; `jitter` is 0..<1 (both injectable for tests).
    public init(
        settings: Settings,
        makeTransport: @escaping @Sendable () throws(OutboundError) -> any OutboundTransport,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.settings = settings
        self.makeTransport = makeTransport
        self.wallClock = wallClock
        self.jitter = jitter
        for index in 0..<max(1, settings.workers) {
            startThread(named: "\(settings.name)-\(index)") { $0.work() }
        }
        startThread(named: "\(settings.name)-timer") { $0.holdRetries() }
    }

    /// Workers that send with libcurl.
    public convenience init(settings: Settings, client: OutboundClientSettings) {
        self.init(settings: settings, makeTransport: { () throws(OutboundError) -> any OutboundTransport in
            try OutboundClient(settings: client)
        })
    }

    /// Takes a job, or refuses it at once; never blocks. `completion` runs exactly once,
    /// on a queue thread (or the caller of `shutdown`), when the job ends.
    @discardableResult
    public func submit(_ request: OutboundRequest, completion: @escaping Completion) -> Admission {
        let admission = state.withLock { state -> Admission in
            guard !state.stopping else { return .shutDown }
            guard state.held < settings.capacity else {
                state.counters.droppedFull += 1
                return .full
            }
            state.held += 1
            state.ready.append(Job(request: request, completion: completion))
            return .accepted
        }
        if admission == .accepted { jobsReady.signal() }
        return admission
    }

    public var counters: OutboundCounters {
        state.withLock { $0.counters }
    }

    /// Jobs held now (waiting, sending, or waiting to be retried).
    public var held: Int {
        state.withLock { $0.held }
    }

    /// Refuses new jobs, ends every job not being sent as `abandoned` at once, lets each
    /// attempt in flight finish (its timeouts bound it; a retry it would want is
    /// abandoned too), and returns when every thread has ended. A second call returns at once.
    public func shutdown() {
        let dropped = state.withLock { state -> [Job]? in
            guard !state.stopping else { return nil }
            state.stopping = true
            let dropped = Array(state.ready[state.readyHead...]) + state.waiting.map(\.job)
            state.ready = []
            state.readyHead = 0
            state.waiting = []
            state.held -= dropped.count
            state.counters.abandoned += dropped.count
            return dropped
        }
        guard let dropped else { return }
        for job in dropped {
            job.completion(DeliveryReport(outcome: .abandoned, attempts: job.attempts))
        }
        for _ in 0..<max(1, settings.workers) { jobsReady.signal() }
        timerWake.signal()
        for _ in 0..<(max(1, settings.workers) + 1) { threadsEnded.wait() }
    }

    private func startThread(named name: String, _ body: @escaping @Sendable (OutboundQueue) -> Void) {
        let thread = Thread { [self] in
            clinux_set_thread_name(name)
            body(self)
            threadsEnded.signal()
        }
        thread.name = name
        thread.start()
    }

    // MARK: Workers

    private func work() {
        var transport: (any OutboundTransport)?
        var transportError: OutboundError?
        do throws(OutboundError) { transport = try makeTransport() } catch { transportError = error }
        while let job = nextJob() {
            var job = job
            job.attempts += 1
            let result: Result<OutboundResponse, OutboundError>
            if let transport {
                do throws(OutboundError) { result = .success(try transport.perform(job.request)) } catch { result = .failure(error) }
            } else {
                result = .failure(transportError ?? OutboundError(.other, origin: "-", "no transport"))
            }
            settle(job, result: result)
        }
    }

    /// The next job to send; nil once the queue is stopping.
    private func nextJob() -> Job? {
        while true {
            jobsReady.wait()
            let next = state.withLock { state -> (job: Job?, stop: Bool) in
                if state.stopping { return (nil, true) }
                guard state.readyHead < state.ready.count else { return (nil, false) }
                let job = state.ready[state.readyHead]
                state.readyHead += 1
                if state.readyHead == state.ready.count {
                    state.ready.removeAll(keepingCapacity: true)
                    state.readyHead = 0
                }
                return (job, false)
            }
            if let job = next.job { return job }
            if next.stop { return nil }
        }
    }

    /// Ends the job, or schedules its next attempt, as `DeliveryVerdict` judges the result.
    private func settle(_ job: Job, result: Result<OutboundResponse, OutboundError>) {
        switch result {
        case .success(let response):
            switch DeliveryVerdict.judge(status: response.status, retryAfter: response.header("Retry-After")) {
            case .delivered: finish(job, .delivered(response))
            case .gone: finish(job, .gone(status: response.status))
            case .retry(let header): retryOrGiveUp(job, last: .status(response.status), retryAfterHeader: header)
            case .rejected, .refusedByPolicy, .failed: finish(job, .rejected(response))
            }
        case .failure(let error):
            switch DeliveryVerdict.judge(error: error) {
            case .refusedByPolicy: finish(job, .refusedByPolicy(error))
            case .retry: retryOrGiveUp(job, last: .error(error), retryAfterHeader: nil)
            case .delivered, .gone, .rejected, .failed: finish(job, .failed(error))
            }
        }
    }

    private func retryOrGiveUp(_ job: Job, last: DeliveryOutcome.LastFailure, retryAfterHeader: String?) {
        let retryAfter = retryAfterHeader.flatMap { RetryAfter.seconds(in: $0, now: wallClock()) }
        if let delay = settings.retry.delay(afterAttempt: job.attempts, retryAfterSeconds: retryAfter, jitter: jitter()) {
            schedule(job, afterSeconds: delay)
        } else {
            finish(job, .gaveUp(last))
        }
    }

    private func finish(_ job: Job, _ outcome: DeliveryOutcome) {
        state.withLock { state in
            state.held -= 1
            switch outcome {
            case .delivered: state.counters.sent += 1
            case .gone: state.counters.gone += 1
            case .rejected, .failed: state.counters.failed += 1
            case .refusedByPolicy: state.counters.refusedByPolicy += 1
            case .gaveUp: state.counters.gaveUp += 1
            case .abandoned: state.counters.abandoned += 1
            }
        }
        job.completion(DeliveryReport(outcome: outcome, attempts: job.attempts))
    }

    // MARK: Retries

    /// Hands the job to the timer thread, or ends it as abandoned when the queue is stopping.
    private func schedule(_ job: Job, afterSeconds seconds: Double) {
        let due = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
        let scheduled = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            let index = state.waiting.firstIndex { $0.due > due } ?? state.waiting.count
            state.waiting.insert(Waiting(due: due, job: job), at: index)
            state.counters.retried += 1
            return true
        }
        if scheduled {
            timerWake.signal()
        } else {
            finish(job, .abandoned)
        }
    }

    /// The timer thread: sleeps until the earliest retry is due (or a new one arrives),
    /// then moves due jobs back to the ready list.
    private func holdRetries() {
        while true {
            let next = state.withLock { state -> (due: UInt64?, moved: Int, stop: Bool) in
                if state.stopping { return (nil, 0, true) }
                let now = DispatchTime.now().uptimeNanoseconds
                var moved = 0
                while let first = state.waiting.first, first.due <= now {
                    state.waiting.removeFirst()
                    state.ready.append(first.job)
                    moved += 1
                }
                return (state.waiting.first?.due, moved, false)
            }
            if next.stop { return }
            for _ in 0..<next.moved { jobsReady.signal() }
            if let due = next.due {
                _ = timerWake.wait(timeout: DispatchTime(uptimeNanoseconds: due))
            } else {
                timerWake.wait()
            }
        }
    }
}

/// What a worker sends requests with: `OutboundClient`, or a stand-in in tests.
public protocol OutboundTransport: AnyObject {
    func perform(_ request: OutboundRequest) throws(OutboundError) -> OutboundResponse
}

extension OutboundClient: OutboundTransport {}

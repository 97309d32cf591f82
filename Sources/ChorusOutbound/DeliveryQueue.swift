import CLinux
import Dispatch
import Foundation
import ChorusLocking

/// The engine behind `OutboundQueue` and `MailQueue` (CONTRACT §10): a bounded queue,
/// worker threads of its own (never Dispatch's pool) each with what it sends with, and a
/// timer thread that holds jobs waiting to be retried so they never occupy a worker.
/// The owner says how a worker sends a job and what the attempt came to.
final class DeliveryQueue<Payload: Sendable, Counters: DeliveryCounting>: Sendable {
    typealias Outcome = Counters.Outcome
    /// Runs exactly once per accepted job, with its outcome and the attempts made.
    typealias Completion = @Sendable (Outcome, Int) -> Void
    /// Sends one job on a worker's own transport and judges the result.
    typealias Attempt = (Payload) -> Step

    /// What one attempt came to.
    enum Step {
        case finish(Outcome)
        /// Worth another attempt, after the server's `retryAfterSeconds` when it named
        /// a time, else the policy's backoff; `giveUp` ends the job when none is left.
        case retry(retryAfterSeconds: Double?, giveUp: Outcome)
    }

    private struct Job {
        let payload: Payload
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
        var counters = Counters()
    }

    let settings: OutboundQueue.Settings
    private let state = Locked(State())
    private let jobsReady = DispatchSemaphore(value: 0)
    private let timerWake = DispatchSemaphore(value: 0)
    private let threadsEnded = DispatchSemaphore(value: 0)
    private let abandoned: Outcome
    private let jitter: @Sendable () -> Double

    /// `makeAttempt` runs once on each worker thread, so what it keeps (a libcurl
    /// handle) stays on that thread; `abandoned` is the outcome of jobs shutdown ends.
    init(settings: OutboundQueue.Settings, abandoned: Outcome, jitter: @escaping @Sendable () -> Double,
         makeAttempt: @escaping @Sendable () -> Attempt) {
        self.settings = settings
        self.abandoned = abandoned
        self.jitter = jitter
        for index in 0..<workerCount {
            startThread(named: "\(settings.name)-\(index)") { $0.work(makeAttempt()) }
        }
        startThread(named: "\(settings.name)-timer") { $0.holdRetries() }
    }

    private var workerCount: Int { max(1, settings.workers) }

    /// Takes a job, or refuses it at once; never blocks.
    func submit(_ payload: Payload, completion: @escaping Completion) -> OutboundQueue.Admission {
        let admission = state.withLock { state -> OutboundQueue.Admission in
            guard !state.stopping else { return .shutDown }
            guard state.held < settings.capacity else {
                state.counters.droppedFull += 1
                return .full
            }
            state.held += 1
            state.ready.append(Job(payload: payload, completion: completion))
            return .accepted
        }
        if admission == .accepted { jobsReady.signal() }
        return admission
    }

    var counters: Counters {
        state.withLock { $0.counters }
    }

    var held: Int {
        state.withLock { $0.held }
    }

    /// Refuses new jobs, ends every job not being sent as abandoned at once (on the
    /// caller's thread), lets each attempt in flight finish (a retry it would want is
    /// abandoned too), and returns when every thread has ended. A second call returns at once.
    func shutdown() {
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
            job.completion(abandoned, job.attempts)
        }
        for _ in 0..<workerCount { jobsReady.signal() }
        timerWake.signal()
        for _ in 0..<(workerCount + 1) { threadsEnded.wait() }
    }

    private func startThread(named name: String, _ body: @escaping @Sendable (DeliveryQueue) -> Void) {
        let thread = Thread { [self] in
            clinux_set_thread_name(name)
            body(self)
            threadsEnded.signal()
        }
        thread.name = name
        thread.start()
    }

    // MARK: Workers

    private func work(_ attempt: Attempt) {
        while var job = nextJob() {
            job.attempts += 1
            switch attempt(job.payload) {
            case .finish(let outcome): finish(job, outcome)
            case .retry(let retryAfter, let giveUp):
                if let delay = settings.retry.delay(afterAttempt: job.attempts, retryAfterSeconds: retryAfter, jitter: jitter()) {
                    schedule(job, afterSeconds: delay)
                } else {
                    finish(job, giveUp)
                }
            }
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

    private func finish(_ job: Job, _ outcome: Outcome) {
        state.withLock { state in
            state.held -= 1
            state.counters.count(outcome)
        }
        job.completion(outcome, job.attempts)
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
            finish(job, abandoned)
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

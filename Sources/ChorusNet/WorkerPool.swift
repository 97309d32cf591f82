import CLinux
import Dispatch
import Foundation
import ChorusLocking

/// A few threads for slow work (password hashing) so it never runs on an event loop.
/// The queue is bounded: when it is full, `submit` says no and the caller answers 503
/// instead of letting a flood of logins pile up memory and latency.
public final class WorkerPool: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopping = false
    }

    public let maxPending: Int
    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let threadCount: Int

    public init(threads: Int, maxPending: Int, name: String) {
        self.maxPending = maxPending
        self.threadCount = max(1, threads)
        for index in 0..<threadCount {
            let threadName = "\(name)-\(index)"
            let thread = Thread { [self] in
                clinux_set_thread_name(threadName)
                self.work()
            }
            thread.name = threadName
            thread.start()
        }
    }

    /// Queues a job; false when the queue is full or the pool is stopping.
    @discardableResult
    public func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping, state.jobs.count - state.head < maxPending else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    public var pending: Int {
        state.withLock { $0.jobs.count - $0.head }
    }

    /// Lets queued jobs finish, then ends the threads.
    public func stop() {
        state.withLock { $0.stopping = true }
        for _ in 0..<threadCount { available.signal() }
    }

    private func work() {
        while true {
            available.wait()
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard state.head < state.jobs.count else { return nil }
                let job = state.jobs[state.head]
                state.head += 1
                if state.head == state.jobs.count {
                    state.jobs.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                return job
            }
            if let job {
                job()
            } else if state.withLock({ $0.stopping }) {
                return
            }
        }
    }
}

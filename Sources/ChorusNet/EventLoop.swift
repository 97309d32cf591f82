import CLinux
import Foundation
import ChorusLocking
import Synchronization

/// One thread that waits on epoll and runs everything its sockets and timers need.
///
/// Nothing here knows about chores. File descriptors get a handler, timers get a closure,
/// and other threads hand work in with `execute`, which wakes the loop through an eventfd.
/// The handlers, timers and deferred work are only touched on the loop thread.
public final class EventLoop: @unchecked Sendable {
    // Safety of @unchecked Sendable: `handlers`, `timers`, `timerActions`, `endOfTurn`,
    // and `running` are read and written only on the loop thread (checked with
    // `assertOnLoop`); the only state other threads touch is `inbox`, behind a `Locked`, and
    // the immutable file descriptors.
    public typealias Handler = (_ events: UInt32) -> Void

    public struct TimerHandle: Hashable, Sendable {
        let id: UInt64
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private var handlers: [Int32: Handler] = [:]
    private var timers = TimerHeap()
    private var timerActions: [UInt64: () -> Void] = [:]
    private var nextTimerID: UInt64 = 0
    private var endOfTurn: [() -> Void] = []
    /// Empty buffers the lists below are swapped with when taken (`takeAll(reusing:)`).
    private var spareEndOfTurn: [() -> Void] = []
    private var spareFlushes: [any TurnFlushing] = []
    private var sparePreparations: [any TurnPreparing] = []
    private var spareInbox: [@Sendable () -> Void] = []
    /// Connections with output queued this turn: flushed before the other end-of-turn work,
    /// without a closure (or a weak reference) per connection per turn.
    private var pendingFlushes: [any TurnFlushing] = []
    /// Work that fills connections' output before this turn's writes (fan-out queued in
    /// the turn, copied recipient by recipient), run again after every inbox visit during
    /// the writes so what arrived then joins the writes not yet made.
    private var pendingPreparations: [any TurnPreparing] = []
    /// The one scratch buffer this loop's connections read into.
    let readBuffer = ReadBuffer()
    private let inbox = Locked<[@Sendable () -> Void]>([])
    private var running = false
    /// The loop thread's pthread id (0 before `run`): atomic because any thread may ask `isOnLoop`.
    private let loopThread = Atomic<UInt>(0)
    /// Work was queued with `enqueue` and the loop not yet woken for it.
    private let unwokenWork = Atomic<Bool>(false)

    public init() throws {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw NetError.system("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            Glibc.close(epollFD)
            throw NetError.system("eventfd")
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    /// True when called from this loop's own thread.
    public var isOnLoop: Bool {
        let thread = loopThread.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(thread, pthread_self()) != 0
    }

    public func assertOnLoop(file: StaticString = #fileID, line: UInt = #line) {
        assert(isOnLoop, "event loop state touched off its thread", file: file, line: line)
    }

    // MARK: Work from other threads

    /// Runs `work` on the loop thread soon. Safe from any thread.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let wasEmpty = inbox.withLock { queue in
            queue.append(work)
            return queue.count == 1
        }
        if wasEmpty {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    /// Queues `work` like `execute` but does not wake the loop: a producer that hands over
    /// many items in a burst (the database thread, after a commit) calls `wakeIfQueued()`
    /// once at its end, instead of one eventfd write, and one wake-up, per item.
    public func enqueue(_ work: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(work) }
        unwokenWork.store(true, ordering: .releasing)
    }

    /// Wakes the loop if `enqueue` queued work since the last wake-up.
    public func wakeIfQueued() {
        guard unwokenWork.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Asks the loop to return from `run()` after the current turn.
    public func stop() {
        execute { [self] in running = false }
    }

    // MARK: File descriptors (loop thread only)

    public func register(_ fd: Int32, events: UInt32, handler: @escaping Handler) throws {
        assertOnLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            throw NetError.system("epoll_ctl add")
        }
        handlers[fd] = handler
    }

    public func modify(_ fd: Int32, events: UInt32) {
        assertOnLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = fd
        epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    public func unregister(_ fd: Int32) {
        assertOnLoop()
        var event = epoll_event()
        epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        handlers[fd] = nil
    }

    // MARK: Timers (loop thread only)

    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping () -> Void) -> TimerHandle {
        assertOnLoop()
        nextTimerID += 1
        let delay = UInt64(max(0, seconds) * 1_000_000_000)
        timers.push(.init(deadline: MonotonicTime.nanoseconds() + delay, id: nextTimerID))
        timerActions[nextTimerID] = action
        return TimerHandle(id: nextTimerID)
    }

    /// Cancelled timers stay in the heap until their time and are then skipped.
    public func cancel(_ timer: TimerHandle) {
        assertOnLoop()
        timerActions[timer.id] = nil
    }

    /// Runs `work` after this turn's socket events: lets a session coalesce everything
    /// queued during the turn into one write.
    public func atEndOfTurn(_ work: @escaping () -> Void) {
        assertOnLoop()
        endOfTurn.append(work)
    }

    /// Flushes `item` once this turn's socket events have been handled. The caller keeps
    /// its own "already scheduled" flag, so each item is listed at most once per turn.
    func flushAtEndOfTurn(_ item: any TurnFlushing) {
        assertOnLoop()
        pendingFlushes.append(item)
    }

    /// Runs `item.prepareWrites()` before this turn's writes begin (or, when listed during
    /// them, before the writes not yet made). The caller keeps its own "already listed" flag.
    public func prepareBeforeWrites(_ item: any TurnPreparing) {
        assertOnLoop()
        pendingPreparations.append(item)
    }

    // MARK: Running

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        loopThread.store(pthread_self(), ordering: .releasing)
        running = true
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while running {
            let count = epoll_wait(epollFD, events, Int32(capacity), waitTimeoutMilliseconds())
            if count < 0 && clinux_errno() != EINTR {
                LogWriter.standardError.write("chorusd: epoll_wait: \(String(cString: strerror(clinux_errno())))")
                break
            }
            for index in 0..<max(0, Int(count)) {
                let event = events[index]
                if event.data.fd == wakeFD {
                    drainWakeups()
                } else if let handler = handlers[event.data.fd] {
                    handler(event.events)
                }
            }
            runInbox()
            runDueTimers()
            runEndOfTurn()
        }
        runInbox()
        runEndOfTurn()
        // The loop is done: drop every closure it held, so nothing they captured (the
        // objects that own this loop, say) stays alive in a cycle.
        handlers.removeAll()
        pendingFlushes.removeAll()
        pendingPreparations.removeAll()
        timerActions.removeAll()
        timers = TimerHeap()
    }

    private func waitTimeoutMilliseconds() -> Int32 {
        if !endOfTurn.isEmpty || !pendingFlushes.isEmpty || !pendingPreparations.isEmpty { return 0 }
        guard let next = timers.first else { return -1 }
        let now = MonotonicTime.nanoseconds()
        if next.deadline <= now { return 0 }
        let milliseconds = (next.deadline - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, 60_000))
    }

    private func drainWakeups() {
        var value: UInt64 = 0
        _ = Glibc.read(wakeFD, &value, 8)
    }

    private func runInbox() {
        var work = inbox.withLock { $0.takeAll(reusing: &spareInbox) }
        for item in work { item() }
        work.recycle(into: &spareInbox)
    }

    private func runDueTimers() {
        let now = MonotonicTime.nanoseconds()
        while let next = timers.first, next.deadline <= now {
            _ = timers.pop()
            if let action = timerActions.removeValue(forKey: next.id) { action() }
        }
    }

    private func runEndOfTurn() {
        var inboxVisits = 0
        // Work added while running (a flush that closes and schedules more) runs this turn too.
        while !pendingFlushes.isEmpty || !endOfTurn.isEmpty || !pendingPreparations.isEmpty {
            runPreparations()
            // Every queued write goes out before any end-of-turn closure runs, so such a
            // closure can count on this turn's output having been written.
            while !pendingFlushes.isEmpty {
                var items = pendingFlushes.takeAll(reusing: &spareFlushes)
                for (index, item) in items.enumerated() {
                    // A long flush (one write per session of a big room) takes long enough
                    // for other threads to post more (the next committed batch): taking
                    // it in now lets its output join the writes not yet made.
                    if index > 0 && index % Self.flushesBetweenInboxVisits == 0 && inboxVisits < Self.inboxVisitsPerTurn {
                        inboxVisits += 1
                        runInbox()
                        runPreparations()
                    }
                    item.flushQueued()
                }
                items.recycle(into: &spareFlushes)
                runPreparations()
            }
            var work = endOfTurn.takeAll(reusing: &spareEndOfTurn)
            for item in work { item() }
            work.recycle(into: &spareEndOfTurn)
        }
    }

    private func runPreparations() {
        while !pendingPreparations.isEmpty {
            var items = pendingPreparations.takeAll(reusing: &sparePreparations)
            for item in items { item.prepareWrites() }
            items.recycle(into: &sparePreparations)
        }
    }

    private static let flushesBetweenInboxVisits = 128
    private static let inboxVisitsPerTurn = 8
}

/// An object that queues output during a turn and writes it all at the turn's end.
protocol TurnFlushing: AnyObject {
    func flushQueued()
}

/// Loop-owned work that fills connections' output before the turn's writes
/// (`EventLoop.prepareBeforeWrites`).
public protocol TurnPreparing: AnyObject {
    func prepareWrites()
}

import CLinux
import ChorusLocking
import ChorusNet
import ChorusStore
import Dispatch
import Foundation

/// The tail's machinery: a thread that waits on the feed's doorbell (and polls anyway),
/// reads other nodes' rows in id order, and merges them with this node's committed jobs
/// (`TailOrder`), handing each item to `deliver` strictly in id order. Generic over what
/// an own job and a foreign run are, so its tests use plain values and a fake feed;
/// `TailEventBus` is the server's use.
///
/// `deliver` is called with the tail's lock held, from the executor's thread (`publish`:
/// an own job that is next needs no read of the log) or the tail's; it must only hand
/// work on. After the tail's thread delivered, it calls `delivered` (wake the loops); on
/// the executor's thread the batch-end hook does that.
final class EventTail<Own: Sendable, Foreign: Sendable>: Sendable {
    typealias Step = TailOrder<Own, Foreign>.Step
    typealias Run = (ids: ClosedRange<Int64>, item: Foreign)

    struct Settings: Sendable {
        /// CLUSTER.md: notifications do not survive a database crash, so read anyway.
        var pollInterval = 0.25
        var pageSize = 500
        /// How long an id of this node may go without its job's completion before it is
        /// read back from the log (a COMMIT whose answer was lost and is still being
        /// settled, or was given up as unknown).
        var ownStall = 5.0
        /// Foreign runs held while an own id is missing, before reading pauses.
        var maxBuffered = 20_000
    }

    private struct State {
        var order: TailOrder<Own, Foreign>
        var ringWanted = false
        var ownSinceRing = false
        /// The thread was interrupted for a read it has not started yet: one wake-up, not
        /// one per job of a batch waiting behind other nodes' rows.
        var readRequested = false
        var stopping = false
        var started = false
    }

    let feed: any EventFeed
    private let settings: Settings
    private let state: Locked<State>
    private let render: @Sendable ([FeedRecord]) -> [Run]
    private let deliver: @Sendable (Step) -> Void
    private let delivered: @Sendable () -> Void
    private let finished = DispatchSemaphore(value: 0)

    /// Starts after the newest id committed now: this node's sessions begin here.
    init(feed: any EventFeed, settings: Settings = Settings(), render: @escaping @Sendable ([FeedRecord]) -> [Run],
         deliver: @escaping @Sendable (Step) -> Void, delivered: @escaping @Sendable () -> Void) throws {
        self.feed = feed
        self.settings = settings
        self.render = render
        self.deliver = deliver
        self.delivered = delivered
        state = Locked(State(order: TailOrder(startingAfter: try feed.newestEventID())))
    }

    /// Every id up to this one has been delivered.
    var deliveredUpTo: Int64 { state.withLock { $0.order.deliveredUpTo } }

    func start() {
        guard state.withLock({ state in
            defer { state.started = true }
            return !state.started && !state.stopping
        }) else { return }
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-tail")
            run()
            finished.signal()
        }
        thread.name = "chorus-tail"
        thread.start()
    }

    /// Ends the thread and closes the feed; safe to call again.
    func stop() {
        let (wasRunning, first) = state.withLock { state in
            defer { state.stopping = true }
            return (state.started, !state.stopping)
        }
        guard first else { return }
        feed.interrupt()
        if wasRunning { finished.wait() }
        feed.close()
    }

    /// This node's next completed job, in commit order (the executor's thread); `after`
    /// as `TailOrder.addOwn`'s.
    func publish(_ item: Own, ids: ClosedRange<Int64>?, after: Int64 = 0) {
        let mustRead = state.withLock { state in
            state.order.addOwn(item, ids: ids, after: after)
            if ids != nil { state.ownSinceRing = true }
            drain(&state)
            guard state.order.needsRead, !state.readRequested, !state.stopping else { return false }
            state.readRequested = true
            return true
        }
        if mustRead { feed.interrupt() }
    }

    /// After a batch's completions: ring once if the batch had events.
    func batchEnded() {
        let ring = state.withLock { state in
            guard state.ownSinceRing, !state.stopping else { return false }
            state.ownSinceRing = false
            state.ringWanted = true
            return true
        }
        if ring { feed.interrupt() }
    }

    @discardableResult
    private func drain(_ state: inout State) -> Bool {
        var any = false
        while let step = state.order.next() {
            deliver(step)
            any = true
        }
        return any
    }

    // MARK: The thread

    private func run() {
        var wake = FeedWake.timedOut
        var nextPoll = Date()
        var failing = false
        var stall: (id: Int64, since: Date)?
        while true {
            let (stopping, ring, mustRead) = state.withLock { state in
                defer {
                    state.ringWanted = false
                    state.readRequested = false
                }
                return (state.stopping, state.ringWanted, state.order.needsRead)
            }
            if stopping { break }
            if ring {
                // A lost doorbell costs the others one poll interval, nothing more.
                do { try feed.ringDoorbell() } catch { if !failing { Log.warn("tail doorbell failed", ["error": error]) } }
            }
            var moved = false
            let now = Date()
            if wake == .doorbell || mustRead || now >= nextPoll {
                do {
                    moved = try catchUp()
                    if failing { Log.info("tail works again") }
                    failing = false
                } catch {
                    if !failing { Log.error("tail failed", ["retry_every": settings.pollInterval, "error": error]) }
                    failing = true
                }
                if now >= nextPoll || wake == .doorbell { nextPoll = now.addingTimeInterval(settings.pollInterval) }
            }
            stall = recoverIfStalled(stall, now: now)
            let again = state.withLock { $0.order.needsRead } && moved && !failing
            wake = feed.waitForDoorbell(timeout: again ? 0 : max(0, nextPoll.timeIntervalSinceNow))
        }
    }

    /// Reads other nodes' rows up to the counter, page by page. True when it read any.
    private func catchUp() throws -> Bool {
        let newest = try feed.newestEventID()
        var moved = false
        while true {
            let (from, buffered) = state.withLock { (max($0.order.readUpTo, $0.order.deliveredUpTo), $0.order.foreignCount) }
            guard from < newest, buffered < settings.maxBuffered else { break }
            let rows = try feed.records(after: from, upTo: newest, limit: settings.pageSize)
            let full = rows.count >= settings.pageSize
            let reached = full ? rows[rows.count - 1].id : newest
            let runs = render(rows)
            let handed = state.withLock { state in
                state.order.addForeign(runs, readUpTo: reached)
                return drain(&state)
            }
            if handed { delivered() }
            moved = true
            if !full { break }
        }
        return moved
    }

    /// An id of this node that no completion brought for `ownStall` seconds is read back
    /// from the log and delivered from there: its COMMIT's answer was lost, and its job
    /// still waits for the settlement (or was told the outcome is unknown), yet it
    /// committed. A completion that comes later finds its ids passed: its issuer part
    /// runs without its deliveries.
    private func recoverIfStalled(_ stall: (id: Int64, since: Date)?, now: Date) -> (id: Int64, since: Date)? {
        guard let gap = state.withLock({ $0.order.ownGap }) else { return nil }
        guard let stall, stall.id == gap.lowerBound else { return (gap.lowerBound, now) }
        guard now.timeIntervalSince(stall.since) >= settings.ownStall else { return stall }
        do {
            let rows = try feed.records(after: gap.lowerBound - 1, upTo: gap.upperBound, limit: settings.pageSize,
                                        includingOwn: true)
            let runs = render(rows)
            let handed = state.withLock { state in
                state.order.addRecovered(runs)
                return drain(&state)
            }
            if handed { delivered() }
            Log.warn("tail delivered ids committed here with no completion", ["from": gap.lowerBound, "to": gap.upperBound])
        } catch {
            Log.error("tail could not read back ids", ["from": gap.lowerBound, "to": gap.upperBound, "error": error])
        }
        return nil
    }
}

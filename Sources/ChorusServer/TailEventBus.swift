import ChorusLocking
import ChorusNet
import ChorusProtocol
import ChorusStore

/// The bus of a node that shares its log with others (PostgreSQL): every loop gets every
/// event, this node's own included, through one id-ordered tail (`EventTail`), so members
/// on different nodes see one order. Own jobs come from memory in commit order; other
/// nodes' rows are read from the feed and rendered as the job that stored them rendered
/// them (`Event.rendering` of the same fields: the same bytes). A job's issuer part (its
/// reply, its deliveries on the issuer's loop) runs when the tail reaches the job, so
/// events committed before a command still reach its issuer before its reply; the reply
/// waits for this node's loops only.
final class TailEventBus: EventBus {
    /// One completed job of this node, waiting for its turn.
    struct OwnJob: Sendable {
        let fanOut: FanOut?
        let issuer: IssuerPart?
        let whenWritten: (@Sendable () -> Void)?
    }

    private let hubs: Locked<[LoopBound<Hub>]>
    private let tail: EventTail<OwnJob, FanOut>

    /// Reads the newest id from `feed` (this node delivers what commits after it).
    /// Other nodes' events count in `metrics` as they are handed to the loops.
    init(feed: any EventFeed, settings: EventTail<OwnJob, FanOut>.Settings = .init(), metrics: Metrics? = nil) throws {
        let hubs = Locked<[LoopBound<Hub>]>([])
        self.hubs = hubs
        tail = try EventTail(feed: feed, settings: settings, render: Self.fanOuts, deliver: { step in
            let loops = hubs.withLock { $0 }
            switch step {
            case .own(let job, let stale):
                LoopHandOff.hand(stale ? job.fanOut?.withoutDeliveries : job.fanOut, to: loops, issuer: job.issuer,
                                 whenWritten: job.whenWritten)
            case .foreign(let fanOut):
                if !fanOut.deliveries.isEmpty { metrics?.eventsDelivered(fanOut.deliveries.count) }
                LoopHandOff.hand(fanOut, to: loops, issuer: nil, whenWritten: nil)
            }
        }, delivered: {
            for hub in hubs.withLock({ $0 }) { hub.loop.wakeIfQueued() }
        })
    }

    /// Starts the tail with the first loops, stops it (and closes the feed) with none.
    func attach(_ hubs: [LoopBound<Hub>]) {
        self.hubs.withLock { $0 = hubs }
        if hubs.isEmpty { tail.stop() } else { tail.start() }
    }

    func publish(_ fanOut: FanOut?, issuer: IssuerPart?, whenWritten: (@Sendable () -> Void)?) {
        tail.publish(OwnJob(fanOut: fanOut, issuer: issuer, whenWritten: whenWritten), ids: fanOut?.ids,
                     after: fanOut?.seenUpTo ?? 0)
    }

    func batchEnded() { tail.batchEnded() }

    var deliveredUpTo: Int64? { tail.deliveredUpTo }

    /// Rows as FanOuts: each run of consecutive event ids one FanOut (one trip through
    /// each loop's inbox), each session control one of its own, in place.
    static func fanOuts(of records: [FeedRecord]) -> [(ids: ClosedRange<Int64>, item: FanOut)] {
        var runs: [(ids: ClosedRange<Int64>, item: FanOut)] = []
        var pending: [Delivery] = []
        func endRun() {
            guard let first = pending.first, let last = pending.last else { return }
            runs.append((first.id...last.id, FanOut(foreign: pending, control: nil, ids: first.id...last.id)))
            pending.removeAll()
        }
        for record in records {
            switch record.body {
            case .event(let event, let audience):
                if let last = pending.last, last.id + 1 != record.id { endRun() }
                let rendered = Event.storedRendering(event)
                var delivery = Delivery(id: record.id, event: rendered, audience: audience,
                                        isNotice: NoticeKind.isNotice(eventNamed: event.name))
                delivery.setsZone = ReaderZone.set(by: event)
                pending.append(delivery)
            case .control(let control):
                endRun()
                runs.append((record.id...record.id, FanOut(foreign: [], control: control, ids: record.id...record.id)))
            }
        }
        endRun()
        return runs
    }
}

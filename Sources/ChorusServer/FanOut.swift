import ChorusCore
import ChorusNet
import Synchronization

/// What one committed database job sends to every loop: its events, and the sessions it
/// closes. Made on the database thread right after the commit and handed to each loop
/// once, so fan-out crosses threads once per loop per job, not once per recipient.
/// The database thread hands these out in commit order and each loop runs its inbox in
/// order, so every session sees events in the order they were stored.
struct FanOut: Sendable {
    let deliveries: [Delivery]
    /// The session whose command this was: it gets a reply instead of the event.
    let issuer: UInt64?
    let closeUsers: [Int64]
    let closeReason: String
    let closeToken: Int64?
    /// Set when some deliveries are notices: the loops' reports decide which of them
    /// nobody received, to be kept for the next login.
    private let noticeTicket: UInt64?

    init(_ result: CommandResult, issuer: UInt64?, state: ServerState, loops: Int) {
        deliveries = result.deliveries
        self.issuer = issuer
        closeUsers = result.closeUsers
        closeReason = result.closeReason
        closeToken = result.closeToken
        let notices = result.deliveries.filter(\.isNotice).flatMap { delivery in
            delivery.audience.map { OfflineNotices.Pair(user: $0, event: delivery.id) }
        }
        noticeTicket = notices.isEmpty ? nil : state.offlineNotices.open(loops: loops, candidates: notices)
        if !deliveries.isEmpty { state.recordEvents(deliveries.count) }
    }

    /// Whether loops other than the issuer's have anything to do.
    var isEmpty: Bool { deliveries.isEmpty && closeUsers.isEmpty && closeToken == nil }

    /// Runs on one loop, with its hub. On the issuer's loop (`withReply`) the issuing
    /// session's notices are left out here: they follow its reply (`Hub.queueReply`).
    func run(on hub: Hub, withReply: Bool = false) {
        let reached = hub.deliver(deliveries, except: issuer, noticesToo: withReply)
        if !closeUsers.isEmpty { hub.closeSessions(ofUsers: closeUsers, reason: closeReason) }
        if let closeToken { hub.closeSessions(ofToken: closeToken) }
        guard let noticeTicket, let unreached = hub.state.offlineNotices.report(noticeTicket, reached: reached),
              !unreached.isEmpty else { return }
        hub.database.submit({ db in
            for pair in unreached { try db.addPendingNotice(user: pair.user, event: pair.event) }
        }) { result in
            if case .failure(let error) = result { Log.info("could not keep notices for later: \(error)") }
        }
    }

    /// Hands this to every loop but the issuer's, which runs it itself with the reply.
    /// Called on the database thread, inside the job's completion. Returns the gate the
    /// issuer's reply waits for: it opens once every other loop has written the events,
    /// so whoever gets "OK" can count on the others having been sent the event already,
    /// as when everything ran on one loop.
    ///
    /// `whenWritten`, for a job with no issuer (the scheduler's), runs once every loop has
    /// written what this sent it, or at once when nothing was sent.
    @discardableResult
    func send(to hubs: [LoopBound<Hub>], replyingFrom issuerHub: LoopBound<Hub>?,
              whenWritten: (@Sendable () -> Void)? = nil) -> ReplyGate? {
        let others = isEmpty ? [] : hubs.filter { $0.loop !== issuerHub?.loop }
        guard !others.isEmpty else {
            whenWritten?()
            return nil
        }
        let gate = issuerHub.flatMap { hub in issuer.map { ReplyGate(waitingFor: others.count, issuer: hub, session: $0) } }
        let written = whenWritten.map { Countdown(others.count, then: $0) }
        for hub in others {
            hub.loop.enqueue {
                let local = hub.value
                run(on: local)
                // End-of-turn work runs after the turn's flushes: the events are written.
                if gate != nil || written != nil {
                    local.loop.atEndOfTurn {
                        gate?.arrive()
                        written?.arrive()
                    }
                }
            }
        }
        return gate
    }
}

/// Holds a household command's reply until the other loops have written its events.
final class ReplyGate: Sendable {
    private let countdown: Countdown

    init(waitingFor loops: Int, issuer: LoopBound<Hub>, session: UInt64) {
        // The last loop wakes the issuer's loop to send what may go.
        countdown = Countdown(loops) { issuer.loop.execute { issuer.value.releaseReplies(of: session) } }
    }

    var isOpen: Bool { countdown.isDone }

    func arrive() { countdown.arrive() }
}

/// Runs its action once, when the last of `count` threads has arrived.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let action: @Sendable () -> Void

    init(_ count: Int, then action: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.action = action
    }

    var isDone: Bool { remaining.load(ordering: .acquiring) == 0 }

    func arrive() {
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        action()
    }
}

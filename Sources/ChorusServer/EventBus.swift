import ChorusLocking
import ChorusNet

/// Carries each committed job's events to every loop that may have their recipients.
/// Local delivery (who on a loop gets what, in one write per session per turn) stays on
/// the loops: the bus is called once per job, never per recipient.
///
/// Today every loop is in this process (`LocalEventBus`): a job's `FanOut` goes into each
/// loop's inbox on the database thread right after the commit. On several nodes the bus
/// is the event log itself: each node tails it in id order and feeds its own jobs from
/// memory, and the issuer's reply waits until its node's tail has passed the job's last
/// id (`CLUSTER.md`, the tail). The order it must keep is `EventOrder`'s.
protocol EventBus: Sendable {
    /// The loops of this node; empty once it shuts down.
    func attach(_ hubs: [LoopBound<Hub>])

    /// Hands `fanOut` to every loop but `issuer`'s, which runs it itself with the reply.
    /// Called once per committed job, in commit order. Returns the gate the issuer's
    /// reply waits for: it opens once the other loops have written the events.
    ///
    /// `whenWritten`, for a job with no issuer (the scheduler's), runs once every loop has
    /// written what this sent it, or at once when nothing was sent.
    @discardableResult
    func publish(_ fanOut: FanOut, issuer: LoopBound<Hub>?, whenWritten: (@Sendable () -> Void)?) -> ReplyGate?
}

extension EventBus {
    @discardableResult
    func publish(_ fanOut: FanOut, issuer: LoopBound<Hub>?) -> ReplyGate? {
        publish(fanOut, issuer: issuer, whenWritten: nil)
    }
}

/// The bus of one process: its loops' inboxes. The database thread publishes in commit
/// order and each loop runs its inbox in order, which is what keeps `EventOrder`.
final class LocalEventBus: EventBus {
    private let hubs = Locked<[LoopBound<Hub>]>([])

    func attach(_ hubs: [LoopBound<Hub>]) {
        self.hubs.withLock { $0 = hubs }
    }

    func publish(_ fanOut: FanOut, issuer: LoopBound<Hub>?, whenWritten: (@Sendable () -> Void)?) -> ReplyGate? {
        let others = fanOut.isEmpty ? [] : hubs.withLock { $0 }.filter { $0.loop !== issuer?.loop }
        guard !others.isEmpty else {
            whenWritten?()
            return nil
        }
        let gate = issuer.flatMap { hub in fanOut.issuer.map { ReplyGate(waitingFor: others.count, issuer: hub, session: $0) } }
        let written = whenWritten.map { Countdown(others.count, then: $0) }
        for hub in others {
            hub.loop.enqueue {
                let local = hub.value
                fanOut.run(on: local)
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

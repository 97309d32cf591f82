import ChorusLocking
import ChorusNet

/// Carries each committed job's events to every loop that may have their recipients.
/// Local delivery (who on a loop gets what, in one write per session per turn) stays on
/// the loops: the bus is called once per job, never per recipient.
///
/// In one process (`LocalEventBus`) a job's `FanOut` goes into each loop's inbox on the
/// database thread right after the commit. On several nodes (`TailEventBus`) every loop
/// gets every event, its own node's included, through one id-ordered tail of the shared
/// log, and the issuer's part runs when the tail reaches its job. The order it must keep
/// is `EventOrder`'s.
protocol EventBus: Sendable {
    /// The loops of this node; empty once it shuts down.
    func attach(_ hubs: [LoopBound<Hub>])

    /// Called once per completed command job, in commit order, failures and jobs without
    /// events included (their replies keep their place); a scheduler check that failed has
    /// nothing to hand on and is not published. Hands `fanOut` to every loop but the
    /// issuer's, and runs `issuer`'s part on its loop with the gate its reply waits for
    /// (open once the other loops have written the events); the bus decides when.
    ///
    /// `whenWritten`, for a job with no issuer (the scheduler's), runs once every loop has
    /// written what this sent it, or at once when nothing was sent.
    func publish(_ fanOut: FanOut?, issuer: IssuerPart?, whenWritten: (@Sendable () -> Void)?)

    /// After each batch's completions (the executor's batch-end hook).
    func batchEnded()

    /// The last id delivered in order, for a bus that tails a shared log (ADMIN STATS' lag).
    var deliveredUpTo: Int64? { get }
}

extension EventBus {
    var deliveredUpTo: Int64? { nil }
}

/// What the issuing loop does with a completed job: queue the reply behind `gate`, and
/// deliver the job's events to its own other sessions. Runs on `hub`'s loop, given the
/// FanOut as the bus hands it out (without deliveries when the tail already delivered
/// them from the log), never the job's own copy.
struct IssuerPart: Sendable {
    let hub: LoopBound<Hub>
    let run: @Sendable (Hub, ReplyGate?, FanOut?) -> Void
}

/// Puts one job's work into the loops' inboxes (without waking them: the batch-end
/// handler or the tail does that once). Both buses hand out through this, so a tail
/// delivers exactly as one process does.
enum LoopHandOff {
    static func hand(_ fanOut: FanOut?, to hubs: [LoopBound<Hub>], issuer: IssuerPart?,
                     whenWritten: (@Sendable () -> Void)?) {
        let others = fanOut.map { $0.isEmpty ? [] : hubs.filter { $0.loop !== issuer?.hub.loop } } ?? []
        var gate: ReplyGate?
        if !others.isEmpty, let issuer, let session = fanOut?.issuer {
            gate = ReplyGate(waitingFor: others.count, issuer: issuer.hub, session: session)
        }
        if others.isEmpty {
            whenWritten?()
        } else if let fanOut {
            let written = whenWritten.map { Countdown(others.count, then: $0) }
            for hub in others {
                hub.loop.enqueue { [gate] in
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
        }
        if let issuer {
            issuer.hub.loop.enqueue { [gate] in issuer.run(issuer.hub.value, gate, fanOut) }
        }
    }
}

/// The bus of one process: its loops' inboxes. The database thread publishes in commit
/// order and each loop runs its inbox in order, which is what keeps `EventOrder`.
final class LocalEventBus: EventBus {
    private let hubs = Locked<[LoopBound<Hub>]>([])

    func attach(_ hubs: [LoopBound<Hub>]) {
        self.hubs.withLock { $0 = hubs }
    }

    func publish(_ fanOut: FanOut?, issuer: IssuerPart?, whenWritten: (@Sendable () -> Void)?) {
        LoopHandOff.hand(fanOut, to: hubs.withLock { $0 }, issuer: issuer, whenWritten: whenWritten)
    }

    func batchEnded() {}
}

import ChorusCore
import ChorusNet
import ChorusStore
import Foundation

/// The scheduler's loop side: one timer, set for the next moment a notice is owed. When
/// it fires, a database job sends what is due and says when to wake next. Commands that
/// change dates move the timer through their results.
extension Hub {
    /// Longest sleep between checks, so a changed wall clock is noticed within the hour.
    static let longestNoticeSleep = 3600.0
    /// How soon a check looks again when a notice it could not take is still due.
    static let recheckAfterSkip = 0.25

    func armNoticeTimer(at next: Date?) {
        if let noticeTimer { loop.cancel(noticeTimer) }
        noticeTimer = nil
        // Half a second of slack after a notice time: due times are whole seconds. A time
        // already past right after a check is a notice the check skipped because another
        // node's transaction holds its task (SKIP LOCKED): look again shortly, not at once,
        // or every node would spin checks until that lock goes.
        var wait = next.map { next -> Double in
            let delay = min(max(0, next.timeIntervalSince(clock.now())), Self.longestNoticeSleep)
            return delay > 0 ? delay + 0.5 : Self.recheckAfterSkip
        }
        if let every = state.scheduler.checkEvery { wait = min(wait ?? every, every) }
        guard let delay = wait else { return }
        // unowned: the hub owns the loop, and the loop drops its timers when it stops.
        noticeTimer = loop.schedule(after: delay) { [unowned self] in
            noticeTimer = nil
            checkNotices()
        }
    }

    /// Sends every notice owed now and re-arms the timer. Also run at start, so what came
    /// due while the server was down goes out at once. `done` runs once the check has
    /// committed and every loop has written the notices it sent (also when it failed).
    func checkNotices(then done: (@Sendable () -> Void)? = nil) {
        let hub = bound
        let clock = self.clock
        let state = self.state
        database.submit({ db in
            let context = CommandContext(db: db, caller: Caller(id: 0, name: "chorus"), now: clock.now(), online: [],
                                         notices: state.notices)
            context.mailEnabled = state.mailEnabled
            let next = try context.fireDueNotices()
            return CommandResult(reply: .ok(), deliveries: context.deliveries, nextNotice: .some(next),
                                 queuedNotices: context.queuedNotices)
        }) { result in
            if case .success(let fired) = result, fired.queuedNotices > 0 { state.wakeNoticeDispatcher() }
            // Failures need no place in the order: nobody waits for a reply.
            if case .success(let fired) = result {
                let hubs = state.hubs
                state.bus.publish(FanOut(fired, issuer: nil, state: state, loops: hubs.count), issuer: nil, whenWritten: done)
            } else {
                done?()
            }
            hub.loop.enqueue {
                let hub = hub.value
                switch result {
                case .success(let fired):
                    if hub.noticeCheckFailing { Log.info("scheduler works again") }
                    hub.noticeCheckFailing = false
                    if case .some(let next) = fired.nextNotice { hub.armNoticeTimer(at: next) }
                case .failure(let error):
                    let retry = state.scheduler.checkEvery ?? 60
                    // Once per outage: a node checking every second would log every second.
                    if !hub.noticeCheckFailing { Log.error("scheduler failed", ["retry_every": Int(retry), "error": error]) }
                    hub.noticeCheckFailing = true
                    hub.armNoticeTimer(at: clock.now().addingTimeInterval(retry))
                }
            }
        }
    }

    /// Notices kept while the user had no session, sent after the login reply.
    func sendPendingNotices(_ events: [StoredEvent], to session: Session) {
        guard !events.isEmpty else { return }
        let id = session.id
        let user = session.account?.id
        loop.atEndOfTurn { [unowned self] in
            guard let session = sessions[id] else {
                if let user { holdAgain(events, for: user) }
                return
            }
            pendingFanOut.flush()
            for event in events {
                session.send(Event.storedRendering(event))
            }
        }
    }

    /// Notices a login took for a session that closed before they were sent: held again
    /// (the store took them with DELETE), so the next login gets them.
    func holdAgain(_ events: [StoredEvent], for user: Int64) {
        guard !events.isEmpty else { return }
        database.submit({ db in
            for event in events { try db.addPendingNotice(user: user, event: event.id) }
        }) { result in
            if case .failure(let error) = result { Log.error("could not hold taken notices again", ["user": user, "error": error]) }
        }
    }
}

import ChorusCore
import ChorusCrypto
import ChorusLocking
import ChorusOutbound
import ChorusStore
import Dispatch
import Foundation

/// Sends the notices commands and the scheduler queued (`NoticeOutbox.swift`), on every
/// node: it claims ready rows for a lease (`Store.claimNotices`), hands each to the push
/// queue or the mailer — their own threads, never an event loop or the database thread —
/// and settles the row when the answer comes: sent, gone (the subscription ends), or
/// given up. A node that dies holding a lease leaves its rows to whichever node claims
/// them when the lease ends, so each device gets each notice once, also across nodes
/// (twice only if a node dies between a push service's answer and the row's delete).
final class NoticeDispatcher: Sendable {
    /// For /metrics besides what `Metrics` counts (sent and failed, by channel).
    struct Counts: Sendable, Equatable {
        var subscriptionsEnded = 0
        var claimFailures = 0
    }

    private let database: any StoreExecutor
    private let push: OutboundQueue
    private let mailer: (any NoticeMailer)?
    private let timing: NoticeTiming
    /// The server's clock: rows are ready by the time commands stamped them with.
    private let clock: any Clock
    private let metrics: Metrics
    /// VAPID's `sub`: how a push service reaches whoever runs this server.
    private let subject: @Sendable () -> String
    private let queue = DispatchQueue(label: "chorus-notices")
    private let state = Locked(State())

    private struct State {
        var timer: DispatchSourceTimer?
        var claiming = false
        var wokenWhileClaiming = false
        var stopped = false
        var counts = Counts()
        var claimFailing = false
        /// Rows handed to a queue and not yet settled: their claims are renewed at every
        /// claim, so however long a queue holds them no other claim takes them.
        var inFlight = Set<Int64>()
        /// A queue refused a row in the last batch: wait for the poll rather than claim again.
        var refused = false
    }

    /// The most rows one claim takes: the push queue holds 1,024.
    static let claimBatch = 200

    init(database: any StoreExecutor, push: OutboundQueue, mailer: (any NoticeMailer)?, timing: NoticeTiming, clock: any Clock,
         metrics: Metrics, subject: @escaping @Sendable () -> String) {
        self.clock = clock
        self.metrics = metrics
        self.database = database
        self.push = push
        self.mailer = mailer
        self.timing = timing
        self.subject = subject
    }

    var counts: Counts { state.withLock { $0.counts } }
    var pushCounters: OutboundCounters { push.counters }

    /// Starts polling, and looks at once: rows left by the last run go out now.
    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + timing.poll, repeating: timing.poll, leeway: .milliseconds(200))
        timer.setEventHandler { [weak self] in self?.claim() }
        state.withLock { $0.timer = timer }
        timer.resume()
        wake()
    }

    /// A command queued notices here: look now rather than at the next poll.
    func wake() {
        queue.async { [weak self] in self?.claim() }
    }

    func stop() {
        let timer = state.withLock { state -> DispatchSourceTimer? in
            state.stopped = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
        push.shutdown()
        mailer?.stop()
    }

    /// One claim at a time per node; a wake during one makes another right after it.
    private func claim() {
        let go = state.withLock { state -> Bool in
            if state.stopped { return false }
            if state.claiming {
                state.wokenWhileClaiming = true
                return false
            }
            state.claiming = true
            return true
        }
        guard go else { return }
        let lease = timing.lease
        let clock = self.clock
        let inFlight = state.withLock { state -> [Int64] in
            state.refused = false
            return Array(state.inFlight)
        }
        // No more than the push queue can take now (the mail queue is as large).
        let limit = min(Self.claimBatch, max(0, push.settings.capacity - push.held))
        let mail = mailer != nil
        database.submit({ db -> (notices: [ClaimedNotice], key: VAPIDKeyRecord?) in
            let now = clock.now()
            let second = Int64(now.timeIntervalSince1970)
            let until = second + Int64(lease.rounded(.up))
            try db.renewNoticeClaims(ids: inFlight, until: until)
            guard limit > 0 else { return ([], nil) }
            let notices = try db.claimNotices(readyAt: second, leaseUntil: until, limit: limit, mail: mail)
            let key = notices.contains { $0.subscription != nil } ? try CommandContext.vapidKey(db, now: Timestamp.rfc3339(now)) : nil
            return (notices, key)
        }) { [self] result in
            queue.async { [self] in
                switch result {
                case .success(let claimed):
                    noteClaim(worked: true, nil)
                    // A row this node is still sending (its claim had lapsed before a
                    // renewal) is not sent twice.
                    let fresh = state.withLock { state -> [ClaimedNotice] in
                        let fresh = claimed.notices.filter { !state.inFlight.contains($0.id) }
                        for notice in fresh { state.inFlight.insert(notice.id) }
                        return fresh
                    }
                    send(fresh, key: claimed.key)
                    let again = state.withLock { state -> Bool in
                        state.claiming = false
                        defer { state.wokenWhileClaiming = false }
                        // A full batch may have more behind it; a queue that refused one
                        // has no room for them: the poll comes back.
                        return !state.refused && (state.wokenWhileClaiming || claimed.notices.count == Self.claimBatch)
                    }
                    if again { claim() }
                case .failure(let error):
                    noteClaim(worked: false, error)
                    state.withLock { $0.claiming = false }
                }
            }
        }
    }

    private func noteClaim(worked: Bool, _ error: (any Error)?) {
        let (wasFailing, count) = state.withLock { state -> (Bool, Bool) in
            let was = state.claimFailing
            state.claimFailing = !worked
            if !worked { state.counts.claimFailures += 1 }
            return (was, !worked && !was)
        }
        if worked && wasFailing { Log.info("notices are claimed again") }
        // Once per outage: the poll would log every few seconds.
        if count, let error { Log.error("could not claim notices", ["retry_every": Int(timing.poll), "error": error]) }
    }

    private func send(_ notices: [ClaimedNotice], key record: VAPIDKeyRecord?) {
        let key = record.flatMap { try? P256PrivateKey(base64URL: $0.privateKey) }
        for notice in notices {
            if let subscription = notice.subscription {
                sendPush(notice, subscription, key: key)
            } else if let address = notice.mailTo {
                sendMail(notice, to: address)
            } else {
                settle(notice, .finish(usedAt: nil))
            }
        }
    }

    private func sendPush(_ notice: ClaimedNotice, _ subscription: PushSubscriptionRecord, key: P256PrivateKey?) {
        let request: OutboundRequest
        do {
            guard let key else { throw CryptoError("the VAPID key cannot be read") }
            request = try WebPushRequest.make(notice, subscription: subscription, key: key, subject: subject(), now: Date())
        } catch {
            // A subscription whose keys no longer parse can never be sent to.
            Log.error("push not sent", ["kind": notice.kind, "user": notice.user, "subscription": subscription.id, "error": error])
            metrics.pushFailedOne()
            settle(notice, .finish(usedAt: nil))
            return
        }
        let admission = push.submit(request) { [self] report in
            let id = subscription.id
            switch report.outcome {
            case .delivered(let response):
                Log.info("push sent", ["kind": notice.kind, "user": notice.user, "subscription": id, "attempts": report.attempts, "status": response.status])
                metrics.pushSentOne()
                settle(notice, .finish(usedAt: Timestamp.rfc3339(Date())))
            case .gone(let status):
                Log.info("push subscription gone", ["kind": notice.kind, "user": notice.user, "subscription": id, "attempts": report.attempts, "status": status])
                count { $0.subscriptionsEnded += 1 }
                settle(notice, .endSubscription(subscription.id))
            case .abandoned:
                // Shutting down: the row goes back, so the next start (or node) sends it.
                settle(notice, .release)
            case .rejected(let response):
                Log.warn("push refused", ["kind": notice.kind, "user": notice.user, "subscription": id, "attempts": report.attempts, "status": response.status])
                metrics.pushFailedOne()
                settle(notice, .finish(usedAt: nil))
            case .refusedByPolicy(let error), .failed(let error):
                Log.warn("push not sent", ["kind": notice.kind, "user": notice.user, "subscription": id, "attempts": report.attempts, "error": error])
                metrics.pushFailedOne()
                settle(notice, .finish(usedAt: nil))
            case .gaveUp(let last):
                Log.warn("push given up", ["kind": notice.kind, "user": notice.user, "subscription": id, "attempts": report.attempts, "last": "\(last)"])
                metrics.pushFailedOne()
                settle(notice, .finish(usedAt: nil))
            }
        }
        if admission != .accepted { refuse(notice) }
    }

    private func sendMail(_ notice: ClaimedNotice, to address: String) {
        guard let mailer else {
            // Queued while mail was configured; this node sends none: it would wait forever.
            Log.warn("mail not sent: this node runs without --smtp", ["kind": notice.kind, "user": notice.user])
            metrics.mailFailedOne()
            settle(notice, .finish(usedAt: nil))
            return
        }
        let accepted = mailer.send(notice, to: address) { [self] sent in
            switch sent {
            case .sent:
                Log.info("mail sent", ["kind": notice.kind, "user": notice.user])
                metrics.mailSentOne()
                settle(notice, .finish(usedAt: nil))
            case .failed(let reason):
                Log.warn("mail not sent", ["kind": notice.kind, "user": notice.user, "error": reason])
                metrics.mailFailedOne()
                settle(notice, .finish(usedAt: nil))
            case .abandoned:
                settle(notice, .release)
            }
        }
        if !accepted { refuse(notice) }
    }

    /// A queue was full: the row goes back for a later claim.
    private func refuse(_ notice: ClaimedNotice) {
        state.withLock { $0.refused = true }
        settle(notice, .release)
    }

    private enum Settlement {
        case finish(usedAt: String?)
        case endSubscription(Int64)
        case release
    }

    private func settle(_ notice: ClaimedNotice, _ settlement: Settlement) {
        state.withLock { _ = $0.inFlight.remove(notice.id) }
        database.submit({ db in
            switch settlement {
            case .finish(let usedAt): try db.finishNotice(id: notice.id, usedAt: usedAt)
            case .endSubscription(let id): try db.endPushSubscription(id: id)
            case .release: try db.releaseNotice(id: notice.id)
            }
        }) { result in
            // A row not settled is claimed again when its lease ends: sent twice, never lost.
            if case .failure(let error) = result { Log.error("could not settle a notice", ["notice": notice.id, "error": error]) }
        }
    }

    private func count(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0.counts) }
    }
}

/// How often a dispatcher looks for notices without being woken (rows another node
/// queued and could not send, quiet hours ending, leases running out), and how long a
/// claimed row is left to its claimer.
public struct NoticeTiming: Sendable {
    public var poll: Double
    public var lease: Double

    public init(poll: Double, lease: Double) {
        self.poll = poll
        self.lease = lease
    }

    public static let standard = NoticeTiming(poll: 5, lease: 120)
}

/// Sends one notice by mail (`--smtp`): false when its queue is full (the row is released
/// and claimed again later).
protocol NoticeMailer: Sendable {
    func send(_ notice: ClaimedNotice, to address: String, completion: @escaping @Sendable (MailSent) -> Void) -> Bool
    /// Ends the mailer's threads; mail in flight is abandoned (its rows' leases run out).
    func stop()
}

enum MailSent: Sendable {
    case sent
    case failed(String)
    case abandoned
}

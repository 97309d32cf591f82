import ChorusCore
import ChorusLocking
import ChorusNet
import ChorusWeb
import Synchronization

/// What every event loop of the server shares: limits that count across all sessions,
/// the event rate, the loops' hubs, and the seams to whatever else sessions share (on
/// several nodes, shared with the other nodes too): the event bus, presence, failed
/// logins, the notice ledger and the scheduler election.
///
/// Nothing here is on the per-session path. Sessions, their reads and writes and the
/// fan-out to them belong to one loop each and take no lock; these are touched at
/// connect, login, logout, by the commands that show who is online (ROOM SHOW, ADMIN:
/// the presence lock), and by the database thread once per committed job (the hub list
/// and the event rate).
final class ServerState: Sendable {
    /// Sessions open on all loops, for `--max-connections`.
    let sessionCount = Atomic<Int>(0)
    /// Sessions per peer address, for `--max-per-ip`.
    let addressCounts = Locked<[String: Int]>([:])
    /// The counts `/metrics` shows (sessions closed by a limit among them, which ADMIN
    /// STATS shows too).
    let metrics: Metrics
    /// Whether the store answers, for `/healthz`.
    let storeHealth = StoreHealth()
    /// The origins whose pages may open WebSocket sessions: the certificate's names on
    /// this port and `--web-origin` (`Server.updateWebOrigins`, at start and on SIGHUP).
    let webOrigins = Locked(WebOrigins(certificateNames: [], port: 0, extra: []))
    private let eventRate = Locked(EventRate())
    /// Where committed jobs' events go to reach every loop.
    let bus: any EventBus
    /// Who is online: ROOM SHOW's `online`, ADMIN USERS, ADMIN STATS.
    let presence: any Presence
    /// Failed logins, for the 429s of CONTRACT §4.
    let loginCounts: any FailedLoginCounts
    /// Which notices nobody received live, to be held for the next login.
    let notices: any NoticeLedger
    /// Which loop's timer fires notices.
    let scheduler: any SchedulerElection
    /// The loops' hubs, the listening one first. Set once at start; emptied at shutdown so
    /// the hubs, which refer to this object, can be freed.
    /// Where calendar links point (set once the port is bound).
    let publicOrigin = PublicOrigin()
    /// Sends queued notices; woken by commands that queue some. Nil before start and
    /// after shutdown.
    let noticeDispatcher = Locked<NoticeDispatcher?>(nil)
    /// Whether notices may go by mail (`--smtp` and `--mail-from` given).
    let mailEnabled: Bool
    private let hubList = Locked<[LoopBound<Hub>]>([])
    private let nextHub = Atomic<Int>(0)

    init(bus: any EventBus, presence: any Presence, loginCounts: any FailedLoginCounts, notices: any NoticeLedger,
         scheduler: any SchedulerElection, metrics: Metrics = Metrics(node: nil), mailEnabled: Bool = false) {
        self.metrics = metrics
        self.mailEnabled = mailEnabled
        self.bus = bus
        self.presence = presence
        self.loginCounts = loginCounts
        self.notices = notices
        self.scheduler = scheduler
    }


    func wakeNoticeDispatcher() {
        noticeDispatcher.withLock { $0 }?.wake()
    }

    func setHubs(_ hubs: [LoopBound<Hub>]) {
        hubList.withLock { $0 = hubs }
        bus.attach(hubs)
    }

    /// The hub whose timer fires notices, if one of ours may.
    var schedulerHub: LoopBound<Hub>? { scheduler.scheduler(among: hubs) }

    var hubs: [LoopBound<Hub>] { hubList.withLock { $0 } }

    /// Where the next accepted connection goes: the loops take turns.
    func hubForNextConnection() -> LoopBound<Hub>? {
        let hubs = self.hubs
        guard !hubs.isEmpty else { return nil }
        return hubs[nextHub.add(1, ordering: .relaxed).oldValue % hubs.count]
    }

    // MARK: Events

    /// A committed job of this node's with `count` events reaches the loops.
    func recordEvents(_ count: Int) {
        eventRate.withLock { $0.record(count) }
        metrics.eventsDelivered(count)
    }

    var eventsLastMinute: Int { eventRate.withLock { $0.lastMinute() } }
}

import CLinux
import ChorusCore
import ChorusACME
import ChorusCrypto
import ChorusNet
import ChorusOutbound
import ChorusWeb
import ChorusStore
import Dispatch
import Foundation
import ChorusLocking
import Synchronization

/// Opens the store once the data folder is locked: the composition root (chorusd, the
/// tests) picks the engine; the server only knows the `StoreExecutor`, and closes it.
public typealias StoreOpener = @Sendable (ServerConfiguration) throws -> any StoreExecutor

/// A running Chorus server: the store's executor, the hashing and rendering pools, and event-loop threads
/// (`--loops`), each with a hub and its share of the sessions; the first also listens and
/// runs the notice scheduler. `start` fails with a `StartupError` naming the problem;
/// `shutDown` stops it the way SIGTERM should.
public final class Server: Sendable {
    public let port: Int
    public let configuration: ServerConfiguration
    private let hubs: [LoopBound<Hub>]
    private let state: ServerState
    private let database: any StoreExecutor
    private let pool: WorkerPool
    /// Calendar feeds are rendered here: not on a loop (every session there would wait)
    /// nor on the store's thread (every write would), nor among the hashes (a feed flood
    /// would hold logins up).
    private let renderPool: WorkerPool
    /// Presence shared with other nodes, when given a board.
    private let clusterPresence: ClusterPresence?
    /// Sends queued notices by push and mail.
    private let dispatcher: NoticeDispatcher
    private let loopsFinished = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    /// Held from start to shutdown: one server per data folder.
    private let folderLock: DataFolderLock
    /// With `--acme`: the certificate's keeper, and the tls-alpn-01 answers every TLS
    /// context made here consults.
    private let acme: ACMEKeeper?
    private let alpnChallenges: TLSALPNChallenges?

    /// The hub that listens.
    var first: LoopBound<Hub> { hubs[0] }

    /// Starts on the data folder `lock` holds, or locks it first when nil, with the store
    /// `openStore` opens there. With a `feed` (a log several nodes share, e.g.
    /// `PostgresEventFeed` beside a `PostgresQueue`), every event reaches the loops through
    /// its id-ordered tail (`TailEventBus`); without one, from memory (`LocalEventBus`).
    /// With a `presence` board (e.g. `PostgresPresenceBoard`, which holds the node's name),
    /// who is online counts every live node's sessions (`ClusterPresence`); without one,
    /// this process's. The server owns both from here: it closes them at shutdown or a
    /// failed start.
    public static func start(_ configuration: ServerConfiguration, store openStore: StoreOpener,
                             clock: any Clock = SystemClock(), holding lock: DataFolderLock? = nil,
                             feed: (any EventFeed)? = nil, presence: (any PresenceBoard)? = nil) throws -> Server {
        do {
            return try Server(configuration, openStore: openStore, clock: clock, lock: lock ?? lockDataFolder(of: configuration),
                              feed: feed, presence: presence)
        } catch {
            feed?.close()
            presence?.leave()
            throw error
        }
    }

    /// Makes the data folder if needed and takes its lock: chorusd does this before
    /// anything else, so a second server on the folder says only that and exits.
    public static func lockDataFolder(of configuration: ServerConfiguration) throws -> DataFolderLock {
        try DataDirectory.prepare(configuration.dataDirectory)
        return try DataFolderLock(folder: configuration.dataDirectory)
    }

    private init(_ configuration: ServerConfiguration, openStore: StoreOpener, clock: any Clock, lock: DataFolderLock,
                 feed: (any EventFeed)?, presence board: (any PresenceBoard)?) throws {
        self.configuration = configuration
        Sockets.ignoreSIGPIPE()
        Sockets.raiseOpenFileLimit()
        folderLock = lock
        do {
            database = try openStore(configuration)
        } catch {
            throw StartupError("cannot open database \(configuration.databasePath): \(error)")
        }
        let alpnChallenges: TLSALPNChallenges?
        let acme: ACMEKeeper?
        do {
            if let settings = configuration.acme {
                let challenges = TLSALPNChallenges()
                let database = database
                let http = try settings.httpPort.map { try HTTPChallengeListener(host: configuration.host, port: $0) }
                alpnChallenges = challenges
                acme = ACMEKeeper(settings: settings, node: configuration.node ?? "chorusd", database: database,
                                  challenges: challenges, http: http, shared: feed != nil)
            } else {
                alpnChallenges = nil
                acme = nil
            }
        } catch {
            database.close()
            throw StartupError("cannot answer ACME's http-01 challenges: \(error)")
        }
        self.alpnChallenges = alpnChallenges
        self.acme = acme
        let tls: TLSServerContext
        var acmeNames: [String]?
        do {
            // A stored ACME certificate still valid is served from the first connection.
            if let issued = acme?.storedCertificate() {
                tls = try TLSServerContext(chainPEM: Array(issued.chainPEM.utf8), keyPEM: Array(issued.keyPEM.utf8), challenges: alpnChallenges)
                acmeNames = issued.names
            } else {
                tls = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath,
                                           challenges: alpnChallenges)
            }
        } catch {
            acme?.stop()
            database.close()
            throw StartupError("\(error)")
        }
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount - 1)
        pool = WorkerPool(threads: workers, maxPending: configuration.maxPendingHashes, name: "chorus-hash")
        renderPool = WorkerPool(threads: 1, maxPending: 64, name: "chorus-render")
        // A node that shares its log with others (a feed) shares the throttle and the
        // notices too: they are kept in the store, where every node counts and takes them.
        let shared = feed != nil
        let loginCounts: any FailedLoginCounts = shared ? StoredFailedLoginCounts(database: database) : LocalFailedLoginCounts()
        // The seams' in-process implementations (one node, every session in this process),
        // or the ones kept in a store several nodes share.
        let ledger: any NoticeLedger = shared ? StoredNoticeLedger(database: database) : LocalNoticeLedger { [database] unreached in
            database.submit({ db in
                for notice in unreached { try db.addPendingNotice(user: notice.user, event: notice.event) }
            }) { result in
                if case .failure(let error) = result { Log.error("could not keep notices for later", ["error": error]) }
            }
        }
        let accounts: AccountService
        do {
            accounts = try AccountService(database: database, hasher: PasswordHasher(parameters: configuration.scrypt),
                                          pool: pool, clock: clock, loginCounts: loginCounts, notices: ledger,
                                          registration: configuration.registration, registerRate: configuration.registerRate)
        } catch {
            acme?.stop()
            database.close()
            pool.stop()
            renderPool.stop()
            throw StartupError("cannot hash passwords: \(error)")
        }

        // In cluster mode every series carries the node's name.
        let metrics = Metrics(node: shared ? configuration.node : nil)
        let bus: any EventBus
        do {
            bus = try feed.map { try TailEventBus(feed: $0, metrics: metrics) } ?? LocalEventBus()
        } catch {
            acme?.stop()
            database.close()
            pool.stop()
            renderPool.stop()
            throw StartupError("cannot read the event log: \(error)")
        }
        let clusterPresence = board.map(ClusterPresence.init)
        self.clusterPresence = clusterPresence
        let state = ServerState(bus: bus, presence: clusterPresence ?? LocalPresence(), loginCounts: loginCounts,
                                notices: ledger, scheduler: shared ? EveryNodeSchedules() : FirstLoopSchedules(),
                                metrics: metrics, mailEnabled: configuration.smtp != nil)
        self.state = state
        // Pushes and mail go from threads of their own (CONTRACT §10), never a loop's.
        let pushQueue = OutboundQueue(settings: OutboundQueue.Settings(name: "chorus-push"),
                                      client: OutboundClientSettings(policy: AddressPolicy(allowing: configuration.pushAllow),
                                                                     caFile: configuration.pushCA))
        let mailer = configuration.smtp.map { smtp in
            SMTPNoticeMailer(smtp: smtp, origin: { [weak state] in state?.publicOrigin.origin ?? "" })
        }
        let dispatcher = NoticeDispatcher(database: database, push: pushQueue, mailer: mailer, timing: configuration.noticeTiming, clock: clock,
                                          metrics: metrics,
                                          subject: { [weak state, mailFrom = configuration.mailFrom] in
            mailFrom.map { "mailto:" + $0 } ?? state.map { $0.publicOrigin.origin } ?? "https://localhost"
        })
        self.dispatcher = dispatcher
        state.noticeDispatcher.withLock { $0 = dispatcher }
        database.setObserver(StoreWatch(metrics: metrics, health: state.storeHealth))
        var hubs: [LoopBound<Hub>] = []
        do {
            for _ in 0..<max(1, configuration.loops) {
                let loop = try EventLoop()
                hubs.append(LoopBound(Hub(loop: loop, configuration: configuration, accounts: accounts, database: database,
                                          renderPool: renderPool, clock: clock, state: state), loop: loop))
            }
        } catch {
            state.setHubs([])
            acme?.stop()
            database.close()
            pool.stop()
            renderPool.stop()
            throw StartupError("cannot make an event loop: \(error)")
        }
        self.hubs = hubs
        state.setHubs(hubs)
        // Completions queue their replies and events without waking the loops; each loop
        // is woken once per committed batch.
        database.setBatchEndHandler {
            state.bus.batchEnded()
            for hub in state.hubs { hub.loop.wakeIfQueued() }
        }
        // The first loop accepts; each new socket goes to the next loop in turn, which
        // does its TLS handshake and owns it from then on.
        let listener: Listener
        do {
            listener = try Listener(host: configuration.host, port: configuration.port, loop: hubs[0].loop, tls: tls) { accepted in
                guard let hub = state.hubForNextConnection() else { return Connection.refuse(accepted) }
                // This runs on loop 0: its own share needs no trip through the inbox.
                if hub.loop.isOnLoop {
                    hub.value.accept(accepted)
                } else {
                    hub.loop.execute { hub.value.accept(accepted) }
                }
            }
        } catch {
            state.setHubs([])
            acme?.stop()
            database.close()
            pool.stop()
            renderPool.stop()
            throw StartupError("\(error)")
        }
        port = listener.port
        state.publicOrigin.set(configuration.calendarOrigin(port: listener.port))
        updateWebOrigins(acmeNames: acmeNames)

        let started = DispatchSemaphore(value: 0)
        let registration = LoopBound(listener, loop: hubs[0].loop)
        let startError = StartErrorBox()
        hubs[0].loop.execute { [first = hubs[0]] in
            do {
                try registration.value.start()
                first.value.listener = registration.value
            } catch {
                startError.set("cannot watch the listening socket: \(error)")
            }
            started.signal()
        }
        let finished = loopsFinished
        for (index, hub) in hubs.enumerated() {
            let loop = hub.loop
            let name = hubs.count == 1 ? "chorus-loop" : "chorus-loop-\(index)"
            let thread = Thread {
                clinux_set_thread_name(name)
                loop.run()
                finished.signal()
            }
            thread.name = name
            thread.start()
        }
        started.wait()
        if let message = startError.get() {
            stopLoops()
            acme?.stop()
            database.close()
            pool.stop()
            renderPool.stop()
            throw StartupError(message)
        }
        clusterPresence?.start(ClusterPresence.Source(sessions: { [weak state] in
            state?.sessionCount.load(ordering: .relaxed) ?? 0
        }, deliveredUpTo: { [weak state] in
            state?.bus.deliveredUpTo
        }, heartbeat: { [weak state] worked in
            state?.storeHealth.heard(reachable: worked)
        }))
        // Whatever came due while the server was down goes out now.
        checkNotices()
        dispatcher.start()
        acme?.start { [weak self] issued in try self?.installACMECertificate(issued) }
    }

    /// Reads the certificate and key again (SIGHUP): new connections use them, open
    /// sessions keep going. On failure the old pair stays and the error is thrown. With
    /// `--acme` and an ACME certificate served, that one stays, and the keeper looks at
    /// the store and the renewal time at once.
    /// Returns false when it kept the ACME certificate instead of reading the files.
    @discardableResult
    public func reloadCertificates() throws -> Bool {
        if let acme, acme.current != nil {
            acme.lookNow()
            return false
        }
        let context: TLSServerContext
        do {
            context = try TLSServerContext(certificatePath: configuration.certificatePath, keyPath: configuration.keyPath,
                                           challenges: alpnChallenges)
        } catch {
            throw StartupError("\(error)")
        }
        updateWebOrigins(acmeNames: nil)
        replaceTLS(context)
        return true
    }

    /// Serves a certificate ACME issued (or another node stored) to new connections, as
    /// SIGHUP does: sessions already open keep theirs.
    func installACMECertificate(_ issued: IssuedCertificate) throws {
        let context = try TLSServerContext(chainPEM: Array(issued.chainPEM.utf8), keyPEM: Array(issued.keyPEM.utf8),
                                           challenges: alpnChallenges)
        updateWebOrigins(acmeNames: issued.names)
        replaceTLS(context)
    }

    /// The listener is the first loop's; the swap happens there.
    private func replaceTLS(_ context: TLSServerContext) {
        let done = DispatchSemaphore(value: 0)
        first.loop.execute { [first] in
            first.value.listener?.replaceTLS(context)
            done.signal()
        }
        done.wait()
    }

    /// The WebSocket origins from the certificate's names: the ACME certificate's when one
    /// is served, else those in the certificate file as it is now.
    private func updateWebOrigins(acmeNames: [String]?) {
        let names = acmeNames.map { $0.map { "DNS:" + $0 } }
            ?? (try? CertificateNames.subjectAltNames(pemFile: configuration.certificatePath)) ?? []
        state.webOrigins.withLock { $0 = WebOrigins(certificateNames: names, port: port, extra: configuration.webOrigins) }
    }

    /// Sends the notices owed at the clock's present time. The scheduler's timer does this
    /// by itself; tests that move a manual clock call it to skip the wait, and wait for
    /// `done`: once it runs, every notice the check fired has been written to its sessions,
    /// so a session that then hears nothing really was sent nothing.
    public func checkNotices(then done: (@Sendable () -> Void)? = nil) {
        guard let scheduler = state.schedulerHub else {
            done?()
            return
        }
        scheduler.loop.execute { scheduler.value.checkNotices(then: done) }
    }

    /// What the web door's `GET /calendar/SECRET.ics` gets (`Hub.calendarFeed`), asked on
    /// the first loop; for tests, which reach the door only through it.
    func calendarFeed(secret: String, completion: @escaping @Sendable (CalendarFeedAnswer) -> Void) {
        first.loop.execute { [first] in first.value.calendarFeed(secret: Substring(secret), completion: completion) }
    }

    /// Stops accepting, says `bye`, lets commands in flight answer, closes every session
    /// and the database. Blocks until done; safe to call more than once.
    public func shutDown() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // First, so no certificate swap waits on a loop that is stopping.
        acme?.stop()
        // The first hub closes the listener before it says bye, so no loop gets new sessions.
        let done = DispatchSemaphore(value: 0)
        for hub in hubs {
            hub.loop.execute { hub.value.shutDown { done.signal() } }
        }
        for _ in hubs { done.wait() }
        stopLoops()
        clusterPresence?.stop()
        // Sends in flight are abandoned: their rows' leases end and a node sends them then.
        dispatcher.stop()
        state.noticeDispatcher.withLock { $0 = nil }
        database.close()
        pool.stop()
        renderPool.stop()
        folderLock.release()
    }

    /// Stops every loop and waits for their threads; the hubs can then be freed.
    private func stopLoops() {
        for hub in hubs { hub.loop.stop() }
        for _ in hubs { loopsFinished.wait() }
        for _ in hubs { loopsFinished.signal() }
        state.setHubs([])
    }
}

/// Why the server could not start: one line for standard error (exit status 2).
public struct StartupError: Error, CustomStringConvertible {
    public let description: String
    /// The store could not be reached (its server down or starting): later may work, so
    /// chorusd exits 75 for a service manager to try again, not 2 (CONTRACT §12).
    public let unreachable: Bool
    public init(_ description: String, unreachable: Bool = false) {
        self.description = description
        self.unreachable = unreachable
    }
}

/// A message handed from the loop thread to the starting thread.
private final class StartErrorBox: Sendable {
    private let message = Locked<String?>(nil)
    func set(_ text: String) { message.withLock { $0 = text } }
    func get() -> String? { message.withLock { $0 } }
}

import ChorusCore
import ChorusLocking
import ChorusNet
import ChorusStore
import Foundation

/// The loop-side heart of the server, one per event loop: it turns its sessions' bytes
/// into requests, runs commands and sends replies and events. Everything here runs on
/// its loop's thread; slow work leaves through `AccountService` or the database and comes
/// back with `loop.execute`. Its sessions, their admission and timers are `sessions`'s;
/// what all loops share (limits, presence, the event bus) is in `ServerState`.
final class Hub: ConnectionDelegate {
    static let greeting = "chorus 0.1 ready — type HELP"
    static let preLoginMaxLine = 4096

    let loop: EventLoop
    let configuration: ServerConfiguration
    let accounts: AccountService
    /// Where calendar feeds are rendered (`CalendarFeeds`), off this loop and the store's thread.
    let renderPool: WorkerPool
    let database: any StoreExecutor
    let clock: any Clock
    let state: ServerState
    /// Only the first hub listens; it hands each new socket to a hub in turn.
    var listener: Listener?
    /// The scheduler's one timer, on the hub the election chose: when it fires, owed
    /// notices go out (`Hub+Notices.swift`).
    var noticeTimer: EventLoop.TimerHandle?
    /// The last notice check failed (logged once until one succeeds).
    var noticeCheckFailing = false
    let startedAt = MonotonicTime.nanoseconds()
    let sessions: SessionTable
    /// Events this turn brought, written to their recipients just before the turn's writes,
    /// or earlier where something else must follow them (`PendingFanOut.flush`).
    let pendingFanOut: PendingFanOut
    /// Checks that this loop delivers events in id order (`EventOrder`).
    private var order = EventOrder()
    /// The newest event id this loop has delivered.
    var deliveredUpTo: Int64 { order.lastID }
    /// Household commands read this turn start the database once, at the turn's end.
    let databaseWake: DatabaseWake

    init(loop: EventLoop, configuration: ServerConfiguration, accounts: AccountService, database: any StoreExecutor,
         renderPool: WorkerPool, clock: any Clock, state: ServerState) {
        self.renderPool = renderPool
        self.loop = loop
        self.configuration = configuration
        self.accounts = accounts
        self.database = database
        self.clock = clock
        self.state = state
        let pendingFanOut = PendingFanOut(loop: loop, metrics: state.metrics)
        self.pendingFanOut = pendingFanOut
        self.sessions = SessionTable(loop: loop, configuration: configuration, state: state, pendingFanOut: pendingFanOut)
        self.databaseWake = DatabaseWake(loop: loop, database: database)
    }

    /// This hub, carried across threads and opened only on its loop.
    var bound: LoopBound<Hub> { LoopBound(self, loop: loop) }

    // MARK: Connections

    /// A socket the listener accepted and gave to this loop: it becomes a session here.
    func accept(_ accepted: AcceptedSocket) {
        sessions.admit(accepted, delegate: self)
    }

    func connectionDidOpen(_ connection: Connection) {
        guard let session = sessions[connection.id] else { return }
        openDoor(of: session)
    }

    func connection(_ connection: Connection, didReceive bytes: UnsafeRawBufferPointer) {
        guard let session = sessions[connection.id] else { return }
        switch session.door {
        case .undecided:
            sniff(session, bytes)
        case .lines:
            session.framer.append(bytes)
            processLines(of: session)
        case .webSocket(let link):
            link.append(bytes)
            processLines(of: session)
        case .http(let exchange):
            receiveHTTP(session, exchange, bytes)
        }
    }

    func connectionDidClose(_ connection: Connection, reason: String) {
        sessions.remove(connection)
    }

    /// Logs a session in or out (`SessionTable.setAccount`).
    /// `zone`: the account's `tz` (`NOTIFY`), in which the session shows times.
    func setAccount(_ account: SignedInAccount?, zone: String? = nil, of session: Session) {
        sessions.setAccount(account, of: session)
        session.zone = account == nil ? nil : ReaderZone.of(zone)
    }

    /// Hands each event to `PendingFanOut` for this loop's sessions of its audience but the
    /// one that caused it; they get it before this turn's writes. The bytes were rendered
    /// once per format; every recipient shares them.
    /// Returns the notices that reached someone here (`NoticeLedger` holds the rest).
    func deliver(_ deliveries: [Delivery], except issuer: UInt64?, noticesToo: Bool) -> [UserNotice] {
        var reached: [UserNotice] = []
        for delivery in deliveries {
            let inOrder = order.deliver(delivery.id)
            assert(inOrder, "event \(delivery.id) delivered after \(order.lastID): the bus broke id order")
            // A notice is nobody's reply, so even the session whose command set it off hears
            // it: after that reply, which carries it (`noticesToo`), or here on other loops.
            let skipped = delivery.isNotice && !noticesToo ? nil : issuer
            if let zone = delivery.setsZone { setZone(zone, of: delivery.audience) }
            pendingFanOut.add(delivery.event, to: sessions.recipients(of: delivery.audience), skipping: skipped)
            if delivery.isNotice {
                reached += delivery.audience.filter(sessions.hasSession).map { UserNotice(user: $0, event: delivery.id) }
            }
        }
        return reached
    }

    /// `notify.tz`: these users' sessions show times in `zone` from here on; what is
    /// pending for them goes out first, in the zone it was sent in.
    private func setZone(_ zone: String, of users: [Int64]) {
        pendingFanOut.flush()
        let reader = ReaderZone.of(zone)
        for user in users {
            for session in sessions.sessions(of: user) { session.zone = reader }
        }
    }

    /// Figures for ADMIN STATS, over all loops.
    var status: ServerStatus {
        let lastMinute = state.eventsLastMinute
        let uptime = Double(MonotonicTime.nanoseconds() - startedAt) / 1e9
        return ServerStatus(sessions: state.sessionCount.load(ordering: .relaxed), usersOnline: state.presence.onlineUserCount,
                            uptime: uptime, eventsPerSecond: Double(lastMinute) / min(60, max(1, uptime)),
                            eventsLastMinute: lastMinute, limitCloses: state.metrics.limitCloseCounts,
                            droppedLogLines: Log.droppedLines, nodes: state.presence.nodes)
    }

    /// Closes this loop's sessions of these accounts, telling them why after the events
    /// delivered before.
    func closeSessions(ofUsers users: [Int64], reason: String) {
        let bye = Event(name: "bye", id: nil, at: clock.now(), by: nil, payload: [("reason", .string(reason))],
                        text: "bye — \(reason)").rendered()
        pendingFanOut.flush()
        for user in users {
            for session in sessions.sessions(of: user) {
                setAccount(nil, of: session)
                session.send(bye)
                session.closeAfterFlush()
            }
        }
    }

    /// Closes this loop's sessions that logged in with a revoked token.
    func closeSessions(ofToken token: Int64) {
        let bye = Event(name: "bye", id: nil, at: clock.now(), by: nil, payload: [("reason", .string("token revoked"))],
                        text: "bye — the token of this session was revoked").rendered()
        pendingFanOut.flush()
        for session in sessions.all where session.token?.id == token {
            // A session revoking its own token (a web app signing out) hears its OK first.
            sendOwedReplies(of: session)
            setAccount(nil, of: session)
            session.send(bye)
            session.closeAfterFlush()
        }
    }

    // MARK: Lines

    /// Handles complete lines until the session waits on a command or runs out of them.
    func processLines(of session: Session) {
        reading: while session.connection.isOpen {
            let line: PendingLine
            switch session.input.next() {
            case .stop:
                break reading
            case .held(let held):
                line = held
            case .fresh:
                let now = MonotonicTime.nanoseconds()
                // A line costs a token only once it is complete; check before taking it out.
                guard hasCompleteRequest(session) else { break reading }
                guard session.takeToken(rate: configuration.rate, burst: configuration.burst, now: now) else {
                    waitForToken(session)
                    break reading
                }
                guard let frame = nextRequest(session) else { break reading }
                session.receivedFirstLine = true
                session.lastActivity = now
                guard let understood = understand(frame, for: session) else { continue }
                line = understood
            }
            // Household commands may overlap; anything else waits for them, so replies keep
            // request order.
            let overlaps = isHousehold(line, for: session)
            if session.input.admit(line, overlaps: overlaps) == .hold {
                session.apply(.pauseReading)
                break
            }
            // What any other line writes (a reply, a new output mode) comes after the events
            // already due to the session. A household command writes nothing now: its reply
            // goes out through `releaseReplies`, which flushes.
            if !overlaps { pendingFanOut.flush() }
            switch line {
            case .reply(let reply, let tag):
                // A line no row took (a syntax error, a 413).
                session.answering = .other
                session.send(reply, tag: tag)
            case .request(let request): handle(request, from: session)
            }
        }
        // A held line may have just been taken: reading resumes if nothing else holds it back.
        session.updateReading()
    }

    /// A frame as a reply to send or a request to run; nil for an empty line.
    private func understand(_ frame: LineFramer.Frame, for session: Session) -> PendingLine? {
        switch frame {
        case .tooLong(let tag):
            return .reply(.error(.lineTooLong(max: configuration.maxLine)), tag: tag)
        case .line(let bytes) where session.account == nil && bytes.count > Self.preLoginMaxLine:
            // Strangers get a small budget: no command before login needs more.
            return .reply(.error(.preLoginLineTooLong(max: Self.preLoginMaxLine)),
                          tag: RequestParser.readableTag(bytes))
        case .line(let bytes):
            switch RequestParser.parse(bytes) {
            case .empty: return nil
            case .failure(let tag, let error): return .reply(.error(error), tag: tag)
            case .request(let request): return .request(request)
            }
        }
    }

    /// Runs as a database job with no effect on the session itself.
    private func isHousehold(_ line: PendingLine, for session: Session) -> Bool {
        guard case .request(let request) = line, session.account != nil else { return false }
        return request.kind.isDatabaseJob
    }

    /// Out of tokens: stop reading until one is back, then carry on with buffered lines.
    private func waitForToken(_ session: Session) {
        session.apply(session.input.outOfTokens())
        let id = session.id
        loop.schedule(after: session.secondsUntilToken(rate: configuration.rate)) { [unowned self] in
            guard let session = sessions[id] else { return }
            session.apply(session.input.tokenBack())
            self.processLines(of: session)
        }
    }

    /// Runs slow work off the loop: the session reads nothing more until `finish` has
    /// replied, so replies keep request order. `unanswered` gets a result whose session
    /// closed meanwhile (on the loop), for what must not be dropped with it.
    func runOffLoop<T: Sendable>(
        _ session: Session, tag: String?,
        start: (@escaping @Sendable (Result<T, ChorusError>) -> Void) -> Void,
        finish: @escaping (Session, T) -> Reply,
        unanswered: ((T) -> Void)? = nil
    ) {
        session.apply(session.input.runAlone())
        let id = session.id
        let hub = bound
        let boundFinish = LoopBound(finish, loop: loop)
        let boundUnanswered = LoopBound(unanswered, loop: loop)
        // A `start` that answers before it returns (a weak new password, say) must not
        // answer inline: `processLines` would recurse once per pipelined line.
        let starting = Locked(true)
        defer { starting.withLock { $0 = false } }
        start { result in
            // Called on the loop itself (a login's end, at its place in the event order):
            // at once, before anything else the loop has queued.
            let answer: @Sendable () -> Void = {
                let hub = hub.value
                guard let session = hub.sessions[id] else {
                    if case .success(let value) = result { boundUnanswered.value?(value) }
                    return
                }
                session.apply(session.input.answeredAlone())
                hub.pendingFanOut.flush()
                switch result {
                case .success(let value): session.send(boundFinish.value(session, value), tag: tag)
                case .failure(let error): session.send(.error(error), tag: tag)
                }
                hub.processLines(of: session)
            }
            if hub.loop.isOnLoop && !starting.withLock({ $0 }) { answer() } else { hub.loop.execute(answer) }
        }
    }

    // MARK: Shutdown

    /// Stops accepting (on the first hub), tells this loop's sessions `bye`, lets in-flight
    /// commands answer, flushes and closes them, then calls `done` (on the loop).
    func shutDown(done: @escaping () -> Void) {
        sessions.refusesNew = true
        listener?.close()
        listener = nil
        let bye = Event(name: "bye", id: nil, at: Date(), by: nil, payload: [("reason", .string("server shutting down"))],
                        text: "bye — the server is shutting down").rendered()
        pendingFanOut.flush()
        for session in sessions.all {
            session.apply(session.input.close())
            session.send(bye)
        }
        let deadline = MonotonicTime.nanoseconds() + 5_000_000_000
        waitForQuiet(deadline: deadline, done: done)
    }

    private func waitForQuiet(deadline: UInt64, done: @escaping () -> Void) {
        let now = MonotonicTime.nanoseconds()
        if sessions.all.contains(where: { !$0.input.isIdle }) && now < deadline {
            loop.schedule(after: 0.01) { [self] in waitForQuiet(deadline: deadline, done: done) }
            return
        }
        for session in sessions.all { session.closeAfterFlush(code: .goingAway) }
        waitForClosed(deadline: now + 2_000_000_000, done: done)
    }

    private func waitForClosed(deadline: UInt64, done: @escaping () -> Void) {
        if !sessions.isEmpty && MonotonicTime.nanoseconds() < deadline {
            loop.schedule(after: 0.01) { [self] in waitForClosed(deadline: deadline, done: done) }
            return
        }
        for session in sessions.all { session.connection.close(reason: "shutdown") }
        done()
    }
}

@available(*, unavailable)
extension Hub: Sendable {}

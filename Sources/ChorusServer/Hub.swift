import ChorusCore
import ChorusNet
import ChorusStore
import Foundation

/// The loop-side heart of the server, one per event loop: it owns that loop's sessions,
/// turns their bytes into requests, runs commands and sends replies and events.
/// Everything here runs on its loop's thread; slow work leaves through `AccountService`
/// or the database and comes back with `loop.execute`. What all loops share (limits,
/// who is online, the other hubs) is in `ServerState`.
final class Hub: ConnectionDelegate {
    static let greeting = "chorus 0.1 ready — type HELP"
    static let preLoginMaxLine = 4096

    let loop: EventLoop
    let configuration: ServerConfiguration
    let accounts: AccountService
    let database: DatabaseQueue
    let clock: any Clock
    let state: ServerState
    /// Only the first hub listens; it hands each new socket to a hub in turn.
    var listener: Listener?
    /// The scheduler's one timer, on the first hub: when it fires, owed notices go out
    /// (`Hub+Notices.swift`).
    var noticeTimer: EventLoop.TimerHandle?
    let startedAt = MonotonicTime.nanoseconds()
    private(set) var sessions: [UInt64: Session] = [:]
    /// This loop's logged-in sessions by account id: where fan-out looks recipients up.
    private(set) var sessionsByUser: [Int64: [Session]] = [:]
    /// Bumped whenever `sessionsByUser` changes, to know when `recipientCache` is stale.
    private var sessionsVersion: UInt64 = 0
    /// The sessions of the last audience fanned out to: a room's messages come in runs
    /// with the same audience, and comparing two lists of user ids is cheaper than
    /// looking every user up again.
    private var recipientCache: (audience: [Int64], sessions: [Session], version: UInt64)?
    /// Events this turn brought, written to their recipients just before the turn's writes.
    let pendingFanOut: PendingFanOut
    /// Household commands read this turn start the database once, at the turn's end.
    let databaseWake: DatabaseWake
    private var shuttingDown = false

    init(loop: EventLoop, configuration: ServerConfiguration, accounts: AccountService, database: DatabaseQueue,
         clock: any Clock, state: ServerState) {
        self.loop = loop
        self.configuration = configuration
        self.accounts = accounts
        self.database = database
        self.clock = clock
        self.state = state
        self.pendingFanOut = PendingFanOut(loop: loop)
        self.databaseWake = DatabaseWake(loop: loop, database: database)
    }

    /// This hub, carried across threads and opened only on its loop.
    var bound: LoopBound<Hub> { LoopBound(self, loop: loop) }

    // MARK: Connections

    /// A socket the listener accepted and gave to this loop: it becomes a session here.
    func accept(_ accepted: AcceptedSocket) {
        // Far past the limit, do not even spend a handshake on it.
        if shuttingDown || state.sessionCount.load(ordering: .relaxed) >= configuration.maxConnections + 64 {
            Connection.refuse(accepted)
            return
        }
        guard let connection = Connection.open(accepted, on: loop, maxQueuedBytes: configuration.sendQueueBytes) else { return }
        connection.sendTimeout = configuration.sendTimeout
        let session = Session(connection: connection, maxLine: configuration.maxLine, pendingFanOut: pendingFanOut)
        connection.delegate = self
        sessions[connection.id] = session
        let open = state.sessionCount.add(1, ordering: .relaxed).newValue
        let address = connection.peerHost
        let exempt = configuration.exempt.contains { $0.contains(address) }
        let perAddress = exempt ? 0 : configuration.maxPerAddress
        let counted = state.addressCounts.withLock { counts in
            guard open <= configuration.maxConnections else { return false }
            guard perAddress == 0 || counts[address, default: 0] < perAddress else { return false }
            counts[address, default: 0] += 1
            return true
        }
        if open > configuration.maxConnections {
            session.refusal = "too many connections to this server; try again later"
        } else if !counted {
            session.refusal = "too many connections from \(address); close some and try again"
        } else {
            session.countedAddress = address
        }
        // A socket that never finishes TLS or never says anything is dropped.
        let timeout = configuration.handshakeTimeout
        // Timers find the session by id: a weak reference would put every retain of the
        // session on the runtime's slow path, and fan-out retains it per delivery.
        let id = session.id
        loop.schedule(after: timeout) { [unowned self] in
            guard let session = sessions[id], !session.receivedFirstLine else { return }
            session.connection.close(reason: "no first line within \(Int(timeout)) s", limit: .handshakeTimeout)
        }
    }

    func connectionDidOpen(_ connection: Connection) {
        guard let session = sessions[connection.id] else { return }
        if let refusal = session.refusal {
            session.send(.error(.unavailable(refusal)), tag: nil)
            session.connection.closeAfterFlush()
            return
        }
        // Sessions start in text mode, so the greeting is always a text line.
        var line: [UInt8] = []
        TextLine.append("* " + Self.greeting, to: &line)
        session.connection.send(line)
        scheduleIdleCheck(session, after: configuration.idleTimeout)
    }

    func connection(_ connection: Connection, didReceive bytes: UnsafeRawBufferPointer) {
        guard let session = sessions[connection.id] else { return }
        session.framer.append(bytes)
        processLines(of: session)
    }

    func connectionDidClose(_ connection: Connection, reason: String) {
        guard let session = sessions.removeValue(forKey: connection.id) else { return }
        if let limit = connection.limitClose { logLimitClose(limit, of: session) }
        state.sessionCount.subtract(1, ordering: .relaxed)
        setAccount(nil, of: session)
        if let address = session.countedAddress {
            state.addressCounts.withLock { counts in
                counts[address, default: 1] -= 1
                if counts[address] == 0 { counts[address] = nil }
            }
        }
    }

    /// One `key=value` line per close a limit forced, and its count for ADMIN STATS.
    private func logLimitClose(_ limit: LimitClose, of session: Session) {
        state.limitCloses.withLock { $0[limit, default: 0] += 1 }
        let setting: String
        switch limit {
        case .sendq: setting = "sendq=\(configuration.sendQueueBytes)"
        case .sendTimeout: setting = "send_timeout=\(Int(configuration.sendTimeout))"
        case .idle: setting = "idle_timeout=\(Int(configuration.idleTimeout))"
        case .handshakeTimeout: setting = "handshake_timeout=\(Int(configuration.handshakeTimeout))"
        }
        let user = session.account?.name ?? "-"
        Log.info("close reason=\(limit.rawValue) user=\(user) addr=\(session.connection.peerHost) session=\(session.id) \(setting)")
    }

    /// Logs a session in or out, keeping `sessionsByUser` and who is online in step.
    func setAccount(_ account: SignedInAccount?, of session: Session) {
        sessionsVersion &+= 1
        recipientCache = nil
        if let old = session.account {
            sessionsByUser[old.id]?.removeAll { $0 === session }
            if sessionsByUser[old.id]?.isEmpty == true { sessionsByUser[old.id] = nil }
            state.presence.loggedOut(old.id)
        }
        session.account = account
        if account == nil { session.tokenID = nil }
        if let account {
            sessionsByUser[account.id, default: []].append(session)
            state.presence.loggedIn(account.id)
        }
    }

    /// Hands each event to `PendingFanOut` for this loop's sessions of its audience but the
    /// one that caused it; they get it before this turn's writes. The bytes were rendered
    /// once per format; every recipient shares them.
    /// Returns the notices that reached someone here (see `OfflineNotices`).
    func deliver(_ deliveries: [Delivery], except issuer: UInt64?, noticesToo: Bool) -> [UserNotice] {
        var reached: [UserNotice] = []
        for delivery in deliveries {
            // A notice is nobody's reply, so even the session whose command set it off hears
            // it: after that reply, which carries it (`noticesToo`), or here on other loops.
            let skipped = delivery.isNotice && !noticesToo ? nil : issuer
            pendingFanOut.add(delivery.event, to: recipients(of: delivery.audience), skipping: skipped)
            if delivery.isNotice {
                reached += delivery.audience.filter { sessionsByUser[$0] != nil }.map { UserNotice(user: $0, event: delivery.id) }
            }
        }
        return reached
    }

    /// This loop's sessions of the users in `audience`.
    private func recipients(of audience: [Int64]) -> [Session] {
        if let cache = recipientCache, cache.version == sessionsVersion, cache.audience == audience {
            return cache.sessions
        }
        var found: [Session] = []
        for user in audience {
            if let sessions = sessionsByUser[user] { found += sessions }
        }
        recipientCache = (audience, found, sessionsVersion)
        return found
    }

    /// Closes a session that has said nothing for `--idle-timeout` seconds. The timer is
    /// re-armed lazily: activity only moves a timestamp.
    private func scheduleIdleCheck(_ session: Session, after seconds: Double) {
        // unowned self: the hub owns the loop, and the loop drops its timers when it stops.
        let id = session.id
        loop.schedule(after: seconds) { [unowned self] in
            guard let session = sessions[id], session.connection.isOpen else { return }
            let idle = Double(MonotonicTime.nanoseconds() - session.lastActivity) / 1e9
            if idle >= self.configuration.idleTimeout && session.isIdle {
                session.send(.error(.slowDown("idle for \(Int(idle)) s; closing (PING keeps a session open)")), tag: nil)
                session.connection.closeAfterFlush(limit: .idle)
            } else {
                self.scheduleIdleCheck(session, after: max(1, self.configuration.idleTimeout - idle))
            }
        }
    }

    /// Figures for ADMIN STATS, over all loops.
    var status: ServerStatus {
        let lastMinute = state.eventsLastMinute
        let uptime = Double(MonotonicTime.nanoseconds() - startedAt) / 1e9
        return ServerStatus(sessions: state.sessionCount.load(ordering: .relaxed), usersOnline: state.presence.onlineUserCount,
                            uptime: uptime, eventsPerSecond: Double(lastMinute) / min(60, max(1, uptime)),
                            eventsLastMinute: lastMinute, limitCloses: state.limitCloses.withLock { $0 },
                            droppedLogLines: Log.droppedLines)
    }

    /// Closes this loop's sessions of these accounts, telling them why first.
    func closeSessions(ofUsers users: [Int64], reason: String) {
        let bye = Event(name: "bye", id: nil, at: clock.now(), by: nil, payload: [("reason", .string(reason))],
                        text: "bye — \(reason)").rendered()
        for user in users {
            for session in sessionsByUser[user] ?? [] {
                setAccount(nil, of: session)
                session.send(bye)
                session.connection.closeAfterFlush()
            }
        }
    }

    /// Closes this loop's sessions that logged in with a revoked token.
    func closeSessions(ofToken token: Int64) {
        let bye = Event(name: "bye", id: nil, at: clock.now(), by: nil, payload: [("reason", .string("token revoked"))],
                        text: "bye — the token of this session was revoked").rendered()
        for session in sessions.values where session.tokenID == token {
            setAccount(nil, of: session)
            session.send(bye)
            session.connection.closeAfterFlush()
        }
    }

    // MARK: Lines

    /// Handles complete lines until the session waits on a command or runs out of them.
    func processLines(of session: Session) {
        while !session.busy && !session.draining && !session.rateLimited && session.connection.isOpen {
            let line: PendingLine
            if let held = session.held {
                line = held
                session.held = nil
            } else {
                let now = MonotonicTime.nanoseconds()
                // A line costs a token only once it is complete; check before taking it out.
                guard session.framer.hasCompleteLine else { break }
                guard session.takeToken(rate: configuration.rate, burst: configuration.burst, now: now) else {
                    waitForToken(session)
                    break
                }
                guard let frame = session.framer.next() else { break }
                session.receivedFirstLine = true
                session.lastActivity = now
                guard let understood = understand(frame, for: session) else { continue }
                line = understood
            }
            // Household commands may overlap; anything else waits for them, so replies keep
            // request order.
            let overlaps = isHousehold(line, for: session)
            if session.inFlight > 0 && (!overlaps || session.inFlight >= Session.maxInFlight) {
                session.held = line
                session.updateReading()
                break
            }
            switch line {
            case .reply(let reply, let tag): session.send(reply, tag: tag)
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
            return .reply(.error(.tooLong("line longer than \(configuration.maxLine) bytes; discarded")), tag: tag)
        case .line(let bytes) where session.account == nil && bytes.count > Self.preLoginMaxLine:
            // Strangers get a small budget: no command before login needs more.
            return .reply(.error(.tooLong("before login, lines are at most \(Self.preLoginMaxLine) bytes")),
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
        return Self.householdCommand(request.command)
    }

    /// Out of tokens: stop reading until one is back, then carry on with buffered lines.
    private func waitForToken(_ session: Session) {
        session.rateLimited = true
        session.updateReading()
        let id = session.id
        loop.schedule(after: session.secondsUntilToken(rate: configuration.rate)) { [unowned self] in
            guard let session = sessions[id] else { return }
            session.rateLimited = false
            session.updateReading()
            self.processLines(of: session)
        }
    }

    /// Runs slow work off the loop: the session reads nothing more until `finish` has
    /// replied, so replies keep request order.
    func runOffLoop<T: Sendable>(
        _ session: Session, tag: String?,
        start: (@escaping @Sendable (Result<T, ChorusError>) -> Void) -> Void,
        finish: @escaping (Session, T) -> Reply
    ) {
        session.beginCommand()
        let id = session.id
        let hub = bound
        let boundFinish = LoopBound(finish, loop: loop)
        start { result in
            hub.loop.execute {
                let hub = hub.value
                guard let session = hub.sessions[id] else { return }
                session.endCommand()
                switch result {
                case .success(let value): session.send(boundFinish.value(session, value), tag: tag)
                case .failure(let error): session.send(.error(error), tag: tag)
                }
                hub.processLines(of: session)
            }
        }
    }

    // MARK: Shutdown

    /// Stops accepting (on the first hub), tells this loop's sessions `bye`, lets in-flight
    /// commands answer, flushes and closes them, then calls `done` (on the loop).
    func shutDown(done: @escaping () -> Void) {
        shuttingDown = true
        listener?.close()
        listener = nil
        let bye = Event(name: "bye", id: nil, at: Date(), by: nil, payload: [("reason", .string("server shutting down"))],
                        text: "bye — the server is shutting down").rendered()
        for session in sessions.values {
            session.draining = true
            session.connection.pauseReading()
            session.send(bye)
        }
        let deadline = MonotonicTime.nanoseconds() + 5_000_000_000
        waitForQuiet(deadline: deadline, done: done)
    }

    private func waitForQuiet(deadline: UInt64, done: @escaping () -> Void) {
        let now = MonotonicTime.nanoseconds()
        if sessions.values.contains(where: { !$0.isIdle }) && now < deadline {
            loop.schedule(after: 0.01) { [self] in waitForQuiet(deadline: deadline, done: done) }
            return
        }
        for session in sessions.values { session.connection.closeAfterFlush() }
        waitForClosed(deadline: now + 2_000_000_000, done: done)
    }

    private func waitForClosed(deadline: UInt64, done: @escaping () -> Void) {
        if !sessions.isEmpty && MonotonicTime.nanoseconds() < deadline {
            loop.schedule(after: 0.01) { [self] in waitForClosed(deadline: deadline, done: done) }
            return
        }
        for session in sessions.values { session.connection.close(reason: "shutdown") }
        done()
    }
}

@available(*, unavailable)
extension Hub: Sendable {}

import ChorusCore
import ChorusNet

/// One loop's sessions: who is connected and who is logged in as whom, admission against
/// the connection limits (`--max-connections`, `--max-per-ip`), and the timers that close
/// sessions (handshake, idle). Loop thread only. The counts across loops are in
/// `ServerState`, who is online in its `Presence`.
final class SessionTable {
    private let loop: EventLoop
    private let configuration: ServerConfiguration
    private let state: ServerState
    /// Flushed before a timer writes to a session, so its pending events go first.
    private let pendingFanOut: PendingFanOut
    private var byID: [UInt64: Session] = [:]
    /// Logged-in sessions by account id: where fan-out looks recipients up.
    private var byUser: [Int64: [Session]] = [:]
    /// Bumped whenever `byUser` changes, to know when `recipientCache` is stale.
    private var version: UInt64 = 0
    /// The sessions of the last audience fanned out to: a room's messages come in runs
    /// with the same audience, and comparing two lists of user ids is cheaper than
    /// looking every user up again.
    private var recipientCache: (audience: [Int64], sessions: [Session], version: UInt64)?
    /// Shutdown has begun: new sockets are refused.
    var refusesNew = false

    init(loop: EventLoop, configuration: ServerConfiguration, state: ServerState, pendingFanOut: PendingFanOut) {
        self.loop = loop
        self.configuration = configuration
        self.state = state
        self.pendingFanOut = pendingFanOut
    }

    subscript(id: UInt64) -> Session? { byID[id] }
    var all: Dictionary<UInt64, Session>.Values { byID.values }
    var isEmpty: Bool { byID.isEmpty }

    // MARK: Admission

    /// A socket the listener gave this loop, as a session reading through `delegate`; nil
    /// when refused outright. A session over a limit is admitted with a `refusal`, told
    /// after its handshake.
    @discardableResult
    func admit(_ accepted: AcceptedSocket, delegate: any ConnectionDelegate) -> Session? {
        // Far past the limit, do not even spend a handshake on it.
        if refusesNew || state.sessionCount.load(ordering: .relaxed) >= configuration.maxConnections + 64 {
            Connection.refuse(accepted)
            return nil
        }
        guard let connection = Connection.open(accepted, on: loop, maxQueuedBytes: configuration.sendQueueBytes) else { return nil }
        connection.sendTimeout = configuration.sendTimeout
        let session = Session(connection: connection, maxLine: configuration.maxLine, metrics: state.metrics)
        connection.delegate = delegate
        byID[connection.id] = session
        let open = state.sessionCount.add(1, ordering: .relaxed).newValue
        let exempt = configuration.exempt.contains { $0.contains(connection.peerHost) }
        let address = AddressRange.limitKey(connection.peerHost)
        let perAddress = exempt ? 0 : configuration.maxPerAddress
        let counted = state.addressCounts.withLock { counts in
            guard open <= configuration.maxConnections else { return false }
            // An exempt host is not counted: it would use up its /64 neighbours' share.
            if exempt { return true }
            guard perAddress == 0 || counts[address, default: 0] < perAddress else { return false }
            counts[address, default: 0] += 1
            return true
        }
        if open > configuration.maxConnections {
            session.refusal = .serverFull
        } else if !counted {
            session.refusal = .tooManyConnections(from: address)
        } else if !exempt {
            session.countedAddress = address
        }
        scheduleHandshakeCheck(session)
        return session
    }

    /// The connection closed: the session leaves the table, its login and its counts.
    func remove(_ connection: Connection) {
        guard let session = byID.removeValue(forKey: connection.id) else { return }
        if let limit = connection.limitClose { logLimitClose(limit, of: session) }
        state.sessionCount.subtract(1, ordering: .relaxed)
        session.transport.map { state.metrics.sessionClosed(transport: $0) }
        setAccount(nil, of: session)
        if let address = session.countedAddress {
            state.addressCounts.withLock { counts in
                counts[address, default: 1] -= 1
                if counts[address] == 0 { counts[address] = nil }
            }
        }
    }

    /// One `close` line per close a limit forced, with the setting that did it, and its
    /// count for ADMIN STATS.
    private func logLimitClose(_ limit: LimitClose, of session: Session) {
        state.metrics.limitClosed(limit)
        let user = session.account?.name ?? "-"
        let (setting, value): (String, Int) = switch limit {
        case .sendq: ("sendq", configuration.sendQueueBytes)
        case .sendTimeout: ("send_timeout", Int(configuration.sendTimeout))
        case .idle: ("idle_timeout", Int(configuration.idleTimeout))
        case .handshakeTimeout: ("handshake_timeout", Int(configuration.handshakeTimeout))
        }
        Log.warn("close", ["reason": limit.rawValue, "user": user, "addr": session.connection.peerHost, "session": session.id,
                           setting: value])
    }

    // MARK: Logins

    /// Logs a session in or out, keeping the lookup by account and presence in step.
    func setAccount(_ account: SignedInAccount?, of session: Session) {
        version &+= 1
        recipientCache = nil
        if let old = session.account {
            byUser[old.id]?.removeAll { $0 === session }
            if byUser[old.id]?.isEmpty == true { byUser[old.id] = nil }
            state.presence.loggedOut(old.id)
        }
        session.account = account
        if account == nil { session.token = nil }
        if let account {
            byUser[account.id, default: []].append(session)
            state.presence.loggedIn(account.id)
        }
    }

    /// This loop's sessions logged in as `user`.
    func sessions(of user: Int64) -> [Session] { byUser[user] ?? [] }

    func hasSession(of user: Int64) -> Bool { byUser[user] != nil }

    /// This loop's sessions of the users in `audience`.
    func recipients(of audience: [Int64]) -> [Session] {
        if let cache = recipientCache, cache.version == version, cache.audience == audience {
            return cache.sessions
        }
        var found: [Session] = []
        for user in audience {
            if let sessions = byUser[user] { found += sessions }
        }
        recipientCache = (audience, found, version)
        return found
    }

    // MARK: Timers

    /// A socket that never finishes TLS or never says anything is dropped.
    private func scheduleHandshakeCheck(_ session: Session) {
        let timeout = configuration.handshakeTimeout
        // Timers find the session by id: a weak reference would put every retain of the
        // session on the runtime's slow path, and fan-out retains it per delivery.
        let id = session.id
        // unowned self: the hub owns this table and the loop, which drops its timers when it stops.
        loop.schedule(after: timeout) { [unowned self] in
            guard let session = byID[id], !session.receivedFirstLine else { return }
            session.connection.close(reason: "no first line within \(Int(timeout)) s", limit: .handshakeTimeout)
        }
    }

    /// Closes a session that has said nothing for `--idle-timeout` seconds. The timer is
    /// re-armed lazily: activity only moves a timestamp.
    /// Starting a new check ends the one before (a connection upgraded to WebSocket checks
    /// at half the timeout from then on).
    func scheduleIdleCheck(_ session: Session, after seconds: Double) {
        session.idleCheck &+= 1
        armIdleCheck(session, chain: session.idleCheck, after: seconds)
    }

    private func armIdleCheck(_ session: Session, chain: UInt64, after seconds: Double) {
        let id = session.id
        loop.schedule(after: seconds) { [unowned self] in
            guard let session = byID[id], session.connection.isOpen, session.idleCheck == chain else { return }
            let timeout = configuration.idleTimeout
            let idle = Double(MonotonicTime.nanoseconds() - session.lastActivity) / 1e9
            if idle >= timeout && session.input.isIdle {
                switch session.door {
                case .http:
                    // A kept-alive HTTP connection nobody uses just ends.
                    session.connection.closeAfterFlush(limit: .idle)
                default:
                    pendingFanOut.flush()
                    session.send(.error(.idle(seconds: Int(idle))), tag: nil)
                    session.closeAfterFlush(limit: .idle, code: .goingAway)
                }
            } else if let link = session.webSocket, idle >= timeout / 2, !link.pingOutstanding {
                // Half the timeout quiet: a ping, whose pong counts as activity (CONTRACT §9).
                link.ping(on: session.connection)
                armIdleCheck(session, chain: chain, after: max(0.05, timeout - idle))
            } else {
                let next = session.webSocket != nil && idle < timeout / 2 ? timeout / 2 - idle : timeout - idle
                armIdleCheck(session, chain: chain, after: max(0.05, next))
            }
        }
    }
}

@available(*, unavailable)
extension SessionTable: Sendable {}

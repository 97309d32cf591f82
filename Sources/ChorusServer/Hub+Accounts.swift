import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusStore

/// REGISTER, LOGIN, WHOAMI, PASSWORD: the session side of accounts.
extension Hub {
    /// USER (CONTRACT §5).
    static func userShape(_ account: SignedInAccount) -> JSONValue {
        .object([("name", .string(account.name)), ("admin", .bool(account.admin))])
    }

    /// The token a session logged in with, as AUTH and WHOAMI name it: `{"label","kind"}`,
    /// so a web app can mark "this device" in TOKEN LIST and revoke itself on sign-out.
    static func tokenShape(_ token: TokenRecord) -> JSONValue {
        .object([("label", .string(token.label)), ("kind", .string(token.kind.rawValue))])
    }

    /// How text mode names it: "device token phone".
    static func tokenWords(_ token: TokenRecord) -> String { "\(token.kind.rawValue) token \(token.label)" }

    /// REGISTER NAME PASSWORD [invite=CODE] — creates the account, joins the code's room,
    /// and logs this session in. A sign-up the limits refuse (403, 429) is logged.
    func register(name: String, password: String, invite: String?, session: Session, tag: String?) {
        let address = session.connection.peerHost
        let exempt = configuration.exempt.contains { $0.contains(address) }
        let hub = bound
        let rate = configuration.registerRate
        let mode = configuration.registration
        runOffLoop(session, tag: tag) { [accounts, state] done in
            accounts.register(name: name, password: password, invite: invite, from: AddressRange.limitKey(address), exempt: exempt) { result in
                switch result {
                case .failure(let error):
                    if error.code == 403 || error.code == 429 {
                        Log.warn("sign-up refused", ["code": error.code, "name": name.lowercased(), "addr": address,
                                                     "registration": mode.rawValue, "register_rate": rate,
                                                     "invite": invite == nil ? "no" : "yes"])
                    }
                    done(result)
                case .success(let signUp) where signUp.joined.deliveries.isEmpty:
                    done(result)
                case .success(let signUp):
                    // Just after the commit: the room hears member.added at this job's place
                    // in the event order, and this session is logged in on its loop only
                    // after that, so it misses nothing the room says next (as a login).
                    let fanOut = FanOut(signUp.joined, issuer: nil, state: state, loops: state.hubs.count)
                    state.bus.publish(fanOut, issuer: IssuerPart(hub: hub) { hub, _, handed in
                        handed?.run(on: hub)
                        done(result)
                    }, whenWritten: nil)
                }
            }
        } finish: { [unowned self] session, signUp in
            let account = signUp.account
            setAccount(account, of: session)
            // Now the new account's, by password: not the token it may have logged in with before.
            session.token = nil
            var fields = [("user", Self.userShape(account))]
            var joined = ""
            if let room = signUp.room {
                fields.append(("room", room.shape))
                joined = " and a member of \(room.name) (#\(room.id))"
                Log.info("registered", ["user": account.name, "addr": address, "session": session.id, "room": room.id])
            } else {
                Log.info("registered", ["user": account.name, "addr": address, "session": session.id])
            }
            // The login replies' `unread`, empty here, so clients read all three alike.
            fields += LoginSummary.newAccount.unreadFields
            return .ok("welcome \(account.name) — you are logged in\(joined)", fields)
        }
    }

    /// LOGIN NAME PASSWORD — an unknown name and a wrong password answer alike; too many
    /// failures answer 429 (`FailedLoginCounts`). Each login, failure and throttle is a
    /// log line with the name as typed and the address, never the password.
    func login(name: String, password: String, session: Session, tag: String?) {
        let address = session.connection.peerHost
        let hub = bound
        runOffLoop(session, tag: tag) { [accounts, database, clock, state] done in
            accounts.login(name: name, password: password, from: AddressRange.limitKey(address)) { result in
                guard case .success(let account) = result else {
                    if case .failure(let error) = result {
                        state.metrics.login(error.code == 429 ? .throttled : .failed, method: .password)
                        Self.logRefusedLogin(error, name: name, address: address)
                    }
                    return done(result.map { LoginOutcome(account: $0, summary: .none, notices: [], streamStart: 0) })
                }
                state.metrics.login(.ok, method: .password)
                // What waits for this person: a summary, and notices kept while they were away.
                Self.startLiveStream(database: database, state: state, hub: hub) { db, start in
                    (try LoginSummary.read(for: account.id, db: db, now: clock.now()),
                     try db.takePendingNotices(user: account.id, upTo: start), start, try db.notifyChoices(ofUser: account.id)?.zone)
                } then: { extra in
                    let (summary, notices, start, zone) = (try? extra.get()) ?? (LoginSummary.none, [], Int64.max, nil)
                    done(.success(LoginOutcome(account: account, summary: summary, notices: notices, streamStart: start,
                                               zone: zone)))
                }
            }
        } finish: { [unowned self] session, login in
            setAccount(login.account, zone: login.zone, of: session)
            session.token = nil
            Log.info("login", ["user": login.account.name, "addr": address, "session": session.id])
            sendPendingNotices(login.notices, to: session)
            takeNoticesPassedBeforeLogin(session, since: login.streamStart)
            return .ok("logged in as \(login.account.name)\(login.summary.text)",
                       [("user", Self.userShape(login.account))] + login.summary.unreadFields)
        } unanswered: { [unowned self] login in
            holdAgain(login.notices, for: login.account.id)
        }
    }

    /// AUTH TOKEN — a bot logs in as the token's account. Only the token's SHA-256 digest
    /// is looked up; a disabled account's tokens are refused like unknown ones.
    func authenticate(token: String, session: Session, tag: String?) {
        let digest = Digest.sha256Hex(token)
        let address = session.connection.peerHost
        let hub = bound
        runOffLoop(session, tag: tag) { [database, clock, state] done in
            Self.startLiveStream(database: database, state: state, hub: hub) { db, start -> (LoginOutcome, TokenRecord) in
                guard let (token, account) = try db.useToken(digest: digest, at: Timestamp.rfc3339(clock.now())),
                      !account.disabled else { throw DomainError.invalidToken }
                let summary = try LoginSummary.read(for: account.id, db: db, now: clock.now())
                return (LoginOutcome(account: SignedInAccount(account), summary: summary,
                                     notices: try db.takePendingNotices(user: account.id, upTo: start), streamStart: start,
                                     zone: try db.notifyChoices(ofUser: account.id)?.zone),
                        token)
            } then: { result in
                let outcome = result.mapError(AccountService.clientError)
                switch outcome {
                case .success: state.metrics.login(.ok, method: .token)
                case .failure(let error):
                    state.metrics.login(error.code == 429 ? .throttled : .failed, method: .token)
                    if error.code == 401 { Log.warn("login failed", ["addr": address, "with": "token"]) }
                }
                done(outcome)
            }
        } finish: { [unowned self] session, outcome in
            let (login, token) = outcome
            setAccount(login.account, zone: login.zone, of: session)
            session.token = token
            Log.info("login", ["user": login.account.name, "addr": session.connection.peerHost, "session": session.id,
                               "with": "token"])
            sendPendingNotices(login.notices, to: session)
            takeNoticesPassedBeforeLogin(session, since: login.streamStart)
            return .ok("logged in as \(login.account.name) with a token\(login.summary.text)",
                       [("user", Self.userShape(login.account)), ("token", Self.tokenShape(token))] + login.summary.unreadFields)
        } unanswered: { [unowned self] outcome in
            holdAgain(outcome.0.notices, for: outcome.0.account.id)
        }
    }

    /// The line a refused LOGIN leaves: wrong name or password, throttled, or disabled.
    /// Store failures have their own (`StoreFailureLog`).
    private static func logRefusedLogin(_ error: ChorusError, name: String, address: String) {
        switch error.code {
        case 401: Log.warn("login failed", ["user": name, "addr": address])
        case 429: Log.warn("login throttled", ["user": name, "addr": address])
        case 403: Log.warn("login refused", ["user": name, "addr": address, "reason": "disabled"])
        default: break
        }
    }

    /// A login's last store job, answered at its place in the event order. The job is given
    /// the newest event id (`start`): events up to there reach this loop before `then`
    /// runs (on the loop, which logs the session in at once), later ones after. So a
    /// notice the job takes from those held (`takePendingNotices(upTo: start)`) was
    /// delivered before the session existed, and one it leaves comes live: once either way,
    /// whichever node fired it.
    static func startLiveStream<T: Sendable>(database: any StoreExecutor, state: ServerState, hub: LoopBound<Hub>,
                                             _ job: @escaping @Sendable (any Store, Int64) throws -> T,
                                             then: @escaping @Sendable (Result<T, any Error>) -> Void) {
        database.submit({ db in
            let start = try db.lastEventID()
            return (try job(db, start), start)
        }) { result in
            let start = (try? result.get())?.1
            let fanOut = FanOut(CommandResult(reply: .ok(), seenUpTo: start), issuer: nil, state: state, loops: 0)
            state.bus.publish(fanOut, issuer: IssuerPart(hub: hub) { _, _, _ in then(result.map(\.0)) }, whenWritten: nil)
        }
    }

    /// Notices this loop was handed after the login job's `start` but before the session
    /// was logged in: on several nodes, other nodes' rows may pass a login waiting for its
    /// turn in the tail. Nobody here got them live, so they are still held: take them now.
    /// (On one node nothing passes, and this does nothing.)
    private func takeNoticesPassedBeforeLogin(_ session: Session, since start: Int64) {
        let upTo = deliveredUpTo
        guard upTo > start, let user = session.account?.id else { return }
        let id = session.id
        let hub = bound
        database.submit({ db in try db.takePendingNotices(user: user, upTo: upTo) }) { result in
            hub.loop.execute {
                guard case .success(let events) = result else { return }
                guard let session = hub.value.sessions[id] else { return hub.value.holdAgain(events, for: user) }
                hub.value.sendPendingNotices(events, to: session)
            }
        }
    }

    /// PASSWORD OLD NEW — other sessions of the account stay logged in.
    func changePassword(old: String, new: String, session: Session, tag: String?) {
        guard let account = session.account else { return }
        runOffLoop(session, tag: tag) { [accounts] done in
            accounts.changePassword(accountID: account.id, old: old, new: new, completion: done)
        } finish: { _, _ in
            .ok("password changed")
        }
    }

    /// WHOAMI — the account as the store has it now, so a server-admin grant (or its
    /// revocation) by `chorusd admin` shows at once, not at the next login.
    func whoami(_ session: Session, tag: String?) {
        guard let account = session.account else { return session.send(.error(ChorusError(.notLoggedIn)), tag: tag) }
        runOffLoop(session, tag: tag) { [accounts] done in
            accounts.current(accountID: account.id, completion: done)
        } finish: { session, fresh in
            var text = fresh.name + (fresh.admin ? " (server admin)" : "")
            var fields = [("user", Self.userShape(fresh))]
            if let token = session.token {
                text += " · \(Self.tokenWords(token))"
                fields.append(("token", Self.tokenShape(token)))
            }
            return .ok(text, fields)
        }
    }
}

/// A successful login: the account, LOGIN's summary, and notices kept for it.
struct LoginOutcome: Sendable {
    let account: SignedInAccount
    let summary: LoginSummary
    let notices: [StoredEvent]
    /// Where the session's live stream starts: the newest event id the login's job saw.
    let streamStart: Int64
    /// The person's `tz` (`NOTIFY`), which the session shows times in; nil for the server's.
    var zone: String? = nil
}

import ChorusCore
import ChorusCrypto
import ChorusStore

/// REGISTER, LOGIN, WHOAMI, PASSWORD: the session side of accounts.
extension Hub {
    /// USER (CONTRACT §5).
    static func userShape(_ account: SignedInAccount) -> JSONValue {
        .object([("name", .string(account.name)), ("admin", .bool(account.admin))])
    }

    /// REGISTER NAME PASSWORD — creates the account and logs this session in.
    func register(name: String, password: String, session: Session, tag: String?) {
        runOffLoop(session, tag: tag) { [accounts] done in
            accounts.register(name: name, password: password, completion: done)
        } finish: { [unowned self] session, account in
            setAccount(account, of: session)
            Log.info("registered \(account.name) from \(session.connection.peerHost)")
            return .ok("welcome \(account.name) — you are logged in", [("user", Self.userShape(account))])
        }
    }

    /// LOGIN NAME PASSWORD — an unknown name and a wrong password answer alike; too many
    /// failures answer 429 (`FailedLoginCounts`).
    func login(name: String, password: String, session: Session, tag: String?) {
        let address = session.connection.peerHost
        runOffLoop(session, tag: tag) { [accounts, database, clock] done in
            accounts.login(name: name, password: password, from: address) { result in
                guard case .success(let account) = result else {
                    return done(result.map { LoginOutcome(account: $0, summary: "", notices: []) })
                }
                // What waits for this person: a summary, and notices kept while they were away.
                database.submit({ db in
                    (try LoginSummary.text(for: account.id, db: db, now: clock.now()), try db.takePendingNotices(user: account.id))
                }) { extra in
                    let (summary, notices) = (try? extra.get()) ?? ("", [])
                    done(.success(LoginOutcome(account: account, summary: summary, notices: notices)))
                }
            }
        } finish: { [unowned self] session, login in
            setAccount(login.account, of: session)
            session.tokenID = nil
            sendPendingNotices(login.notices, to: session)
            return .ok("logged in as \(login.account.name)\(login.summary)", [("user", Self.userShape(login.account))])
        }
    }

    /// AUTH TOKEN — a bot logs in as the token's account. Only the token's SHA-256 digest
    /// is looked up; a disabled account's tokens are refused like unknown ones.
    func authenticate(token: String, session: Session, tag: String?) {
        let digest = Digest.sha256Hex(token)
        runOffLoop(session, tag: tag) { [database, clock] done in
            database.submit({ db -> (LoginOutcome, Int64) in
                guard let (tokenID, account) = try db.useToken(digest: digest, at: Timestamp.rfc3339(clock.now())),
                      !account.disabled else { throw DomainError.invalidToken }
                let summary = try LoginSummary.text(for: account.id, db: db, now: clock.now())
                return (LoginOutcome(account: SignedInAccount(account), summary: summary,
                                     notices: try db.takePendingNotices(user: account.id)), tokenID)
            }) { result in
                done(result.mapError(AccountService.clientError))
            }
        } finish: { [unowned self] session, outcome in
            let (login, tokenID) = outcome
            setAccount(login.account, of: session)
            session.tokenID = tokenID
            sendPendingNotices(login.notices, to: session)
            return .ok("logged in as \(login.account.name) with a token\(login.summary)", [("user", Self.userShape(login.account))])
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

    func whoami(_ session: Session) -> Reply {
        guard let account = session.account else { return .error(ChorusError(.notLoggedIn)) }
        return .ok(account.name + (account.admin ? " (server admin)" : ""), [("user", Self.userShape(account))])
    }
}

/// A successful login: the account, LOGIN's summary, and notices kept for it.
struct LoginOutcome: Sendable {
    let account: SignedInAccount
    let summary: String
    let notices: [StoredEvent]
}

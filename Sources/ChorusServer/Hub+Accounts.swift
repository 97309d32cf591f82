import ChorusCore
import ChorusStore

/// REGISTER, LOGIN, WHOAMI, PASSWORD: the session side of accounts.
extension Hub {
    /// USER (CONTRACT §5).
    static func userShape(_ account: AccountRecord) -> JSONValue {
        .object([("name", .string(account.name)), ("admin", .bool(account.admin))])
    }

    /// REGISTER NAME PASSWORD — creates the account and logs this session in.
    func register(name: String, password: String, session: Session, tag: String?) {
        runOffLoop(session, tag: tag) { [accounts] done in
            accounts.register(name: name, password: password, completion: done)
        } finish: { session, account in
            session.account = account
            Log.info("registered \(account.name) from \(session.connection.peerHost)")
            return .ok("welcome \(account.name) — you are logged in", [("user", Self.userShape(account))])
        }
    }

    /// LOGIN NAME PASSWORD — an unknown name and a wrong password answer alike.
    func login(name: String, password: String, session: Session, tag: String?) {
        runOffLoop(session, tag: tag) { [accounts] done in
            accounts.login(name: name, password: password, completion: done)
        } finish: { session, account in
            session.account = account
            return .ok("logged in as \(account.name)", [("user", Self.userShape(account))])
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
        guard let account = session.account else { return .error(.unauthorized("not logged in")) }
        return .ok(account.name + (account.admin ? " (server admin)" : ""), [("user", Self.userShape(account))])
    }
}

import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusStore
import Foundation

/// Registration, login and password changes: the rules from ChorusCore, the hashing on
/// the worker pool, the rows through the database queue. Completions run on a worker or
/// the database thread; the caller moves them back to its loop.
final class AccountService: Sendable {
    typealias Completion<T> = @Sendable (Result<T, ChorusError>) -> Void

    private let database: any StoreExecutor
    private let hasher: PasswordHasher
    private let pool: WorkerPool
    private let clock: any Clock
    private let loginCounts: any FailedLoginCounts
    /// For a REGISTER that joins a room: the room's job holds what it must (`CommandContext`).
    private let notices: any NoticeLedger
    /// `--registration` and `--register-rate`.
    private let registration: RegistrationMode
    private let registerRate: Int
    /// A hash of a random password at the current cost: an unknown name is checked
    /// against it, so it costs the same time as a wrong password.
    private let decoyHash: String

    init(database: any StoreExecutor, hasher: PasswordHasher, pool: WorkerPool, clock: any Clock,
         loginCounts: any FailedLoginCounts, notices: any NoticeLedger, registration: RegistrationMode = .open,
         registerRate: Int = SignUpRules.defaultLimit) throws {
        self.database = database
        self.loginCounts = loginCounts
        self.notices = notices
        self.registration = registration
        self.registerRate = registerRate
        self.hasher = hasher
        self.pool = pool
        self.clock = clock
        self.decoyHash = try hasher.hash(SecureRandom.hex(24))
    }

    /// REGISTER: the sign-up limits (`SignUpRules`: the address's count, invite-only mode),
    /// the invite code, then a taken name, are checked before the hash, so a flood or a stranger on an
    /// invite-only server costs no scrypt, and again in the job that makes the account: its
    /// count, the account, the room its `invite` code joins and the address's new row commit
    /// together or not at all. `exempt`: the address is in `--exempt`, and nothing counts.
    /// Completes on the database thread right after the commit.
    func register(name rawName: String, password: String, invite: String?, from address: String, exempt: Bool,
                  completion: @escaping Completion<SignUp>) {
        let name: String
        do throws(DomainError) {
            name = try AccountRules.normalizedName(rawName)
            try AccountRules.checkPassword(password)
        } catch {
            return completion(.failure(ChorusError(error)))
        }
        let limits = SignUpLimits(address: address, exempt: exempt, rate: registerRate, mode: registration, invited: invite != nil)
        read({ [clock, registration] db -> AccountRecord? in
            try limits.admit(now: clock.now(), db: db)
            // A code that lets nobody in is refused before the hash too, so a flood of
            // made-up codes costs no scrypt (it is checked again as the account is made).
            if let invite {
                let found = try InviteCode.normalized(invite).flatMap { try db.invite(code: $0) }
                _ = try SignUpRules.requireUsableInvite(found, typed: invite, mode: registration, now: clock.now())
            }
            return try db.account(named: name)
        }, completion) { [self] existing in
            // A taken name is public anyway (409); checking first spares a hash.
            if existing != nil { return completion(.failure(ChorusError(.nameTaken(name)))) }
            hash(password, completion) { [self] encoded in
                read({ [clock, registration, notices] db -> SignUp in
                    let now = clock.now()
                    try limits.admit(now: now, db: db)
                    let record = try db.createAccount(name: name, passwordHash: encoded, created: Timestamp.rfc3339(now))
                    var signUp = SignUp(account: SignedInAccount(record))
                    if let invite {
                        let context = CommandContext(db: db, caller: Caller(id: record.id, name: record.name), now: now, online: [],
                                                     notices: notices)
                        let room = try context.joinAsNewAccount(code: invite, mode: registration)
                        signUp.room = (room.id, room.name, context.present.room(room))
                        signUp.joined = context.result(.ok())
                    }
                    if !exempt { try db.recordRegistration(from: address, at: Int64(now.timeIntervalSince1970)) }
                    return signUp
                }, completion) { completion(.success($0)) }
            }
        }
    }

    /// Failed logins count per lowercased name and per name and address (`FailedLoginCounts`),
    /// checked off the loop: on several nodes the counts are shared rows.
    func login(name rawName: String, password: String, from address: String, completion: @escaping Completion<SignedInAccount>) {
        // A malformed name cannot exist, but it still pays for a hash: no timing tells.
        let name = (try? AccountRules.normalizedName(rawName)) ?? ""
        let key = rawName.lowercased()
        read({ [loginCounts, clock] db -> Result<AccountRecord?, ChorusError> in
            if let wait = try loginCounts.admit(name: key, address: address, now: clock.now(), db: db) {
                return .failure(ChorusError(.tooManyFailedLogins(name: key, retryAfter: Int(wait.rounded(.up)))))
            }
            return .success(name.isEmpty ? nil : try db.account(named: name))
        }, completion) { [self] lookup in
            let record: AccountRecord?
            switch lookup {
            case .success(let found): record = found
            case .failure(let throttled): return completion(.failure(throttled))
            }
            onPool(completion) { [self] in
                let matches = hasher.verify(password, against: record?.passwordHash ?? decoyHash)
                guard matches, let account = record else {
                    loginCounts.failed(name: key, address: address, now: clock.now())
                    return completion(.failure(ChorusError(.wrongNameOrPassword)))
                }
                // Only someone who knows the password learns the account is disabled. The
                // password was right, so it ends the failure count as a login would (a shared
                // count took this attempt before the hash).
                guard !account.disabled else {
                    return loginCounts.succeeded(name: key, address: address) {
                        completion(.failure(ChorusError(.accountDisabled)))
                    }
                }
                loginCounts.succeeded(name: key, address: address) { [self] in
                    guard hasher.needsRehash(account.passwordHash) else { return completion(.success(SignedInAccount(account))) }
                    // An older cost: store a new hash before answering, so the upgrade is as
                    // durable as the login (it happens once per account and cost change), on
                    // the pool: `then` may run on the database's thread.
                    onPool(completion) { [self] in
                        upgradeHash(of: account, password: password) { completion(.success(SignedInAccount(account))) }
                    }
                }
            }
        }
    }

    /// The account as stored now (WHOAMI): its admin flag read fresh.
    func current(accountID: Int64, completion: @escaping Completion<SignedInAccount>) {
        read({ db in try db.account(id: accountID) }, completion) { record in
            guard let record else { return completion(.failure(ChorusError(.accountGone))) }
            completion(.success(SignedInAccount(record)))
        }
    }

    func changePassword(accountID: Int64, old: String, new: String, completion: @escaping Completion<Void>) {
        do throws(DomainError) {
            try AccountRules.checkPassword(new)
        } catch {
            return completion(.failure(ChorusError(error)))
        }
        read({ db in try db.account(id: accountID) }, completion) { [self] record in
            guard let record else { return completion(.failure(ChorusError(.accountGone))) }
            onPool(completion) { [self] in
                guard hasher.verify(old, against: record.passwordHash) else {
                    return completion(.failure(ChorusError(.wrongOldPassword)))
                }
                hash(new, completion, onPoolAlready: true) { [self] encoded in
                    // A new password ends every calendar address of the account (CONTRACT §9).
                    read({ db in
                        try db.setPasswordHash(accountID: accountID, hash: encoded)
                        _ = try db.deleteCalendarLinks(user: accountID)
                    }, completion) {
                        completion(.success(()))
                    }
                }
            }
        }
    }

    /// Re-hashes at the current cost after a login with an older hash. A failure is
    /// logged and the login still succeeds: the old hash keeps working.
    private func upgradeHash(of account: AccountRecord, password: String, then done: @escaping @Sendable () -> Void) {
        guard let encoded = try? hasher.hash(password) else { return done() }
        database.submit({ db in try db.setPasswordHash(accountID: account.id, hash: encoded) }) { result in
            if case .failure(let error) = result { Log.error("could not upgrade password hash", ["user": account.name, "error": error]) }
            done()
        }
    }

    // MARK: Steps

    /// A database job whose failure ends the command with the error a client should see.
    private func read<T: Sendable, R>(_ job: @escaping @Sendable (any Store) throws -> T,
                                      _ completion: @escaping Completion<R>,
                                      then next: @escaping @Sendable (T) -> Void) {
        database.submit(job) { result in
            switch result {
            case .success(let value):
                StoreFailureLog.succeeded()
                next(value)
            case .failure(let error): completion(.failure(Self.clientError(error)))
            }
        }
    }

    private func onPool<R>(_ completion: @escaping Completion<R>, _ work: @escaping @Sendable () -> Void) {
        if !pool.submit(work) {
            completion(.failure(.loginsBusy))
        }
    }

    private func hash<R>(_ password: String, _ completion: @escaping Completion<R>, onPoolAlready: Bool = false,
                         then next: @escaping @Sendable (String) -> Void) {
        let work: @Sendable () -> Void = { [hasher] in
            do {
                next(try hasher.hash(password))
            } catch {
                Log.error("password hashing failed", ["error": error])
                completion(.failure(.hashFailed))
            }
        }
        if onPoolAlready { work() } else { onPool(completion, work) }
    }

    /// What a client is told of a failed command: the one place store errors become
    /// protocol codes. A store's own wording ("name ann is taken") is passed on; an
    /// engine's message stays in the log.
    static func clientError(_ error: Error) -> ChorusError {
        switch error {
        case let error as ChorusError: return error
        case let error as DomainError: return ChorusError(error)
        case let error as StoreError:
            if error.reason == nil { StoreFailureLog.record(error) }
            switch error.kind {
            case .duplicate, .constraint: return ChorusError.storageConflict.worded(error.reason)
            case .notFound: return ChorusError.storageNotFound.worded(error.reason)
            case .full: return ChorusError.storageFull.worded(error.reason)
            case .unavailable: return ChorusError.storageUnavailable.worded(error.reason)
            case .failed: return ChorusError.storageFailed.worded(error.reason)
            }
        default:
            Log.error("unexpected error", ["error": error])
            return .internalError
        }
    }
}

/// What a REGISTER must pass besides its name and password (CONTRACT §11, Sign-ups),
/// asked of the store's facts and decided by `SignUpRules`.
private struct SignUpLimits: Sendable {
    let address: String
    let exempt: Bool
    let rate: Int
    let mode: RegistrationMode
    let invited: Bool

    /// 429 past the address's hourly count (never for an exempt address), then 403 on an
    /// invite-only server without a code unless the store has no account yet.
    func admit(now: Date, db: any Store) throws {
        if !exempt {
            let since = Int64(SignUpRules.windowStart(now: now).timeIntervalSince1970.rounded(.down))
            let recent = try db.registrations(from: address, since: since).map { Date(timeIntervalSince1970: Double($0)) }
            if let wait = SignUpRules.retryAfter(recent: recent, limit: rate, now: now) {
                throw DomainError.tooManySignUps(retryAfter: wait)
            }
        }
        try SignUpRules.requireAllowed(mode: mode, invited: invited) { try db.accountCount() == 0 }
    }
}

/// A new account, and the room its invite code joined, with that join's events to fan out
/// (their ids may be provisional until the commit).
struct SignUp: HoldsProvisionalEventIDs {
    let account: SignedInAccount
    /// The joined room's id, name and ROOM shape, as the new member sees it.
    var room: (id: Int64, name: String, shape: JSONValue)?
    var joined = CommandResult(reply: .ok())

    init(account: SignedInAccount) {
        self.account = account
    }

    func resolvingEventIDs(_ ids: FinalEventIDs) -> SignUp {
        var resolved = self
        resolved.joined = joined.resolvingEventIDs(ids)
        return resolved
    }
}

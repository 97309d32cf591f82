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
    /// A hash of a random password at the current cost: an unknown name is checked
    /// against it, so it costs the same time as a wrong password.
    private let decoyHash: String

    init(database: any StoreExecutor, hasher: PasswordHasher, pool: WorkerPool, clock: any Clock,
         loginCounts: any FailedLoginCounts) throws {
        self.database = database
        self.loginCounts = loginCounts
        self.hasher = hasher
        self.pool = pool
        self.clock = clock
        self.decoyHash = try hasher.hash(SecureRandom.hex(24))
    }

    func register(name rawName: String, password: String, completion: @escaping Completion<SignedInAccount>) {
        let name: String
        do throws(DomainError) {
            name = try AccountRules.normalizedName(rawName)
            try AccountRules.checkPassword(password)
        } catch {
            return completion(.failure(ChorusError(error)))
        }
        // A taken name is public anyway (409); checking first spares a hash.
        read({ db in try db.account(named: name) }, completion) { [self] existing in
            if existing != nil { return completion(.failure(ChorusError(.nameTaken(name)))) }
            hash(password, completion) { [self] encoded in
                let created = Timestamp.rfc3339(clock.now())
                read({ db in try db.createAccount(name: name, passwordHash: encoded, created: created) }, completion) { record in
                    completion(.success(SignedInAccount(record)))
                }
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
                    read({ db in try db.setPasswordHash(accountID: accountID, hash: encoded) }, completion) {
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
            if case .failure(let error) = result { Log.info("could not upgrade the hash of \(account.name): \(error)") }
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
            case .success(let value): next(value)
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
                Log.info("password hashing failed: \(error)")
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
            Log.info("unexpected: \(error)")
            return .internalError
        }
    }
}

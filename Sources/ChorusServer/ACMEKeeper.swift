import ChorusAddresses
import ChorusACME
import ChorusCrypto
import ChorusLocking
import ChorusNet
import ChorusOutbound
import ChorusProtocol
import ChorusStore
import CLinux
import Foundation
import Synchronization

/// Keeps the `--acme` certificate: serves the stored one, orders one when there is none or
/// it is due (two thirds of its life), and picks up one another node stored. Runs on a
/// thread of its own, as every ACME transfer blocks (bounded by the outbound client's
/// timeouts); the loops only ever see a finished TLS context swapped in. A failure is
/// logged, the current certificate stays, and the next try waits longer each time.
final class ACMEKeeper: Sendable {
    /// How long one node may hold the ordering lease: longer than an order takes (the
    /// client gives up waiting after two minutes per step), short enough that a node that
    /// died mid-order does not hold the others up for long.
    static let leaseSeconds: Int64 = 600

    let settings: ACMESettings
    let challenges: TLSALPNChallenges
    private let node: String
    private let database: any StoreExecutor
    private let http: HTTPChallengeListener?
    /// On a store several nodes share: it, and the thread answering other nodes' challenges.
    private let shared: (any StoreExecutor)?
    private let mirror: ACMEChallengeMirror?
    /// Swaps a certificate in (the server's `installACMECertificate`), given at `start`.
    private let installer = Locked<(@Sendable (IssuedCertificate) throws -> Void)?>(nil)
    private let namesKey: String
    private let state = Locked(State())
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    private struct State {
        var current: IssuedCertificate?
        var failures = 0
        var nextAttempt: Int64 = 0
    }

    init(settings: ACMESettings, node: String, database: any StoreExecutor, challenges: TLSALPNChallenges,
         http: HTTPChallengeListener?, shared: Bool) {
        self.settings = settings
        self.node = node
        self.database = database
        self.challenges = challenges
        self.http = http
        self.shared = shared ? database : nil
        mirror = shared ? ACMEChallengeMirror(database: database, local: ACMELocalAnswers(alpn: challenges, http: http)) : nil
        namesKey = ACMECertificateRecord.key(for: settings.names)
    }

    /// The certificate being served, once there is one from ACME.
    var current: IssuedCertificate? { state.withLock { $0.current } }

    /// At start, before the port is served: the stored certificate when it is still valid,
    /// so the first client already sees it.
    func storedCertificate() -> IssuedCertificate? {
        do {
            guard let record = try database.sync({ [namesKey] in try $0.acmeCertificate(names: namesKey) }) else { return nil }
            let issued = try IssuedCertificate(chainPEM: record.chainPEM, keyPEM: record.keyPEM)
            guard issued.notAfter > Self.now() else {
                Log.warn("stored ACME certificate has expired", ["names": namesKey, "not_after": Timestamp.rfc3339(Date(timeIntervalSince1970: Double(issued.notAfter)))])
                return nil
            }
            state.withLock { $0.current = issued }
            logInstalled(issued, how: "kept in the store")
            return issued
        } catch {
            Log.error("cannot use the stored ACME certificate", ["names": namesKey, "error": error])
            return nil
        }
    }

    func start(install: @escaping @Sendable (IssuedCertificate) throws -> Void) {
        installer.withLock { $0 = install }
        mirror?.start()
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-acme")
            while !stopped.load(ordering: .acquiring) {
                look()
                _ = wake.wait(timeout: .now() + settings.timing.check)
            }
        }
        thread.name = "chorus-acme"
        thread.start()
    }

    /// Looks again now (SIGHUP) instead of at the next check.
    func lookNow() {
        wake.signal()
    }

    /// The thread ends after what it is doing; an order under way is abandoned when the
    /// process exits.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        mirror?.stop()
        http?.stop()
    }

    // MARK: The thread

    private func look() {
        pickUpStored()
        let now = Self.now()
        let (due, mayTry) = state.withLock { state -> (Bool, Bool) in
            let due = state.current.map {
                RenewalSchedule.isDue(now: now, notBefore: $0.notBefore, notAfter: $0.notAfter, renewAfter: settings.timing.renewAfter)
            } ?? true
            return (due, now >= state.nextAttempt)
        }
        guard due, mayTry, !stopped.load(ordering: .acquiring) else { return }
        do {
            // One node orders at a time; the others pick its certificate up from the store.
            guard try database.sync({ [node] in try $0.takeACMELease(holder: node, now: now, until: now + Self.leaseSeconds) }) else { return }
        } catch {
            Log.error("cannot take the ACME lease", ["error": error])
            return
        }
        defer { _ = try? database.sync { [node] in try $0.releaseACMELease(holder: node) } }
        order()
    }

    /// A newer certificate in the store than the one served (another node renewed it).
    private func pickUpStored() {
        let record: ACMECertificateRecord?
        do {
            record = try database.sync { [namesKey] in try $0.acmeCertificate(names: namesKey) }
        } catch {
            if !stopped.load(ordering: .acquiring) { Log.error("cannot read the stored ACME certificate", ["error": error]) }
            return
        }
        guard let record, record.notBefore > (current?.notBefore ?? Int64.min), record.notAfter > Self.now() else { return }
        do {
            let issued = try IssuedCertificate(chainPEM: record.chainPEM, keyPEM: record.keyPEM)
            try serve(issued, how: "picked up from the store")
        } catch {
            Log.error("cannot use the stored ACME certificate", ["names": namesKey, "error": error])
        }
    }

    private func order() {
        let failures = state.withLock { $0.failures }
        let answers = ACMEChallengeAnswers(local: ACMELocalAnswers(alpn: challenges, http: http), shared: shared,
                                           preferHTTP: failures % 2 == 1)
        Log.info("ordering a certificate", ["names": namesKey, "directory": settings.directory,
                                           "challenges": answers.challengeTypes.joined(separator: ",")])
        var client: ACMEClient?
        do {
            let account = try accountClient()
            client = account
            let issued = try account.obtainCertificate(names: settings.names, responder: answers)
            let kept = try database.sync { [namesKey] db in
                try db.keepACMECertificate(ACMECertificateRecord(names: namesKey, chainPEM: issued.chainPEM, keyPEM: issued.keyPEM,
                                                                 notBefore: issued.notBefore, notAfter: issued.notAfter))
            }
            try serve(IssuedCertificate(chainPEM: kept.chainPEM, keyPEM: kept.keyPEM), how: "issued")
            state.withLock {
                $0.failures = 0
                $0.nextAttempt = 0
            }
        } catch {
            let (count, wait) = state.withLock { state -> (Int, Double) in
                state.failures += 1
                let wait = RenewalSchedule.retryDelay(failures: state.failures, first: settings.timing.firstRetry)
                state.nextAttempt = Self.now() + Int64(wait.rounded(.up))
                return (state.failures, wait)
            }
            forgetAccountIfUnknown(error, client: client)
            let serving = current.map { "the certificate valid until \(Timestamp.rfc3339(Date(timeIntervalSince1970: Double($0.notAfter))))" }
                ?? "the configured certificate"
            Log.error("ACME order failed; kept the current certificate", [
                "names": namesKey, "error": error, "failures": count, "retry_in_s": Int(wait.rounded(.up)), "serving": serving,
            ])
        }
    }

    /// The client with the stored account, registering one (and storing it) when there is
    /// none for this directory yet. Two nodes registering at once keep the first.
    private func accountClient() throws -> ACMEClient {
        var outbound = OutboundClientSettings(policy: Self.anyAddress, caFile: settings.caFile)
        outbound.userAgent = "chorusd (ACME)"
        let directory = settings.directory
        if let account = try database.sync({ try $0.acmeAccount(directory: directory) }) {
            return try ACMEClient(directoryURL: directory, accountKey: try P256PrivateKey(base64URL: account.privateKey),
                                  accountURL: account.url, settings: outbound)
        }
        let key = try P256PrivateKey.generate()
        let client = try ACMEClient(directoryURL: directory, accountKey: key, accountURL: nil, settings: outbound)
        let url = try client.register(email: settings.email)
        let record = ACMEAccountRecord(directory: directory, privateKey: key.base64URL, url: url)
        let created = Timestamp.rfc3339(Date())
        let kept = try database.sync { try $0.keepACMEAccount(record, created: created) }
        Log.info("ACME account registered", ["directory": directory, "account": kept.url])
        guard kept != record else { return client }
        return try ACMEClient(directoryURL: directory, accountKey: try P256PrivateKey(base64URL: kept.privateKey),
                              accountURL: kept.url, settings: outbound)
    }

    /// The CA no longer knows the stored account (a test CA restarted, a staging
    /// directory reset): forget it, so the next order registers a new one, as Caddy does.
    private func forgetAccountIfUnknown(_ error: any Error, client: ACMEClient?) {
        guard let problem = (error as? ACMEError)?.problemType, problem == "urn:ietf:params:acme:error:accountDoesNotExist",
              let url = client?.accountURL
        else { return }
        let directory = settings.directory
        do {
            try database.sync { try $0.deleteACMEAccount(directory: directory, url: url) }
            Log.warn("the ACME server does not accept the stored account; a new one is registered next time",
                     ["directory": directory, "account": url, "problem": problem])
        } catch {
            Log.error("cannot forget the ACME account", ["error": error])
        }
    }

    private func serve(_ issued: IssuedCertificate, how: String) throws {
        try installer.withLock { $0 }?(issued)
        state.withLock { $0.current = issued }
        logInstalled(issued, how: how)
    }

    private func logInstalled(_ issued: IssuedCertificate, how: String) {
        Log.info("certificate installed", [
            "names": namesKey, "how": how,
            "not_after": Timestamp.rfc3339(Date(timeIntervalSince1970: Double(issued.notAfter))),
            "renew_at": Timestamp.rfc3339(Date(timeIntervalSince1970: Double(RenewalSchedule.renewalTime(
                notBefore: issued.notBefore, notAfter: issued.notAfter, renewAfter: settings.timing.renewAfter)))),
        ])
    }

    /// The ACME directory is the operator's own choice (`--acme-directory`), not a
    /// stranger's URL like a push endpoint, so the request-forgery guard allows any
    /// address: a CA on the local network or loopback (a test CA) must work.
    static let anyAddress: AddressPolicy = {
        let all = ["0.0.0.0/0", "::/0"].compactMap { try? AddressBlock(parsing: $0) }
        return AddressPolicy(allowing: all)
    }()

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}

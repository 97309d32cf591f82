import ChorusNet

/// One loop's login loops (sessions sending `LOGIN` one after another until the
/// deadline) and, on shard 0, the unrelated session that sends a `PING` every interval
/// and times it: hashing must happen off the event loop, so that PING stays fast.
/// Loop thread only.
final class LoginShard: BenchShard {
    struct Tallies: Sendable {
        var logins = RoundTripTally()
        var pings = RoundTripTally()
    }

    let index: Int
    let nodes: NodeConnectors
    private var loopSessions: [BenchSession] = []
    private var pinger: BenchSession?
    private var launcher: BoundedLauncher?
    private var tallies = Tallies()
    private var running = 0
    private var pingInFlight = false
    private var completion: ((Tallies) -> Void)?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Registers the account every loop logs in to (one password hash at the server's cost).
    func register(name: String, password: String, completion: @escaping (Result<String, BenchFailure>) -> Void) {
        SessionScript.open(connector: nodes.connector(for: 0), commands: ["REGISTER \(name) \(password)"]) { result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let opened):
                let tls = opened.session.connection.map { "\($0.protocolVersion) \($0.cipherName)" } ?? "unknown"
                opened.session.close()
                completion(.success(tls))
            }
        }
    }

    /// Opens sessions for login loops `loops` (their numbers across all shards), each on its
    /// own node, and the pinger (on the first node) when `withPinger`.
    func prepare(loops: [Int], withPinger: Bool, completion: @escaping (BenchFailure?) -> Void) {
        let total = loops.count + (withPinger ? 1 : 0)
        let launcher = BoundedLauncher(total: total, parallel: 64) { [self] index, done in
            let node = index < loops.count ? loops[index] : 0
            SessionScript.open(connector: nodes.connector(for: node), commands: []) { result in
                switch result {
                case .failure(let failure):
                    done(failure)
                case .success(let opened):
                    if index == loops.count { self.pinger = opened.session } else { self.loopSessions.append(opened.session) }
                    done(nil)
                }
            }
        }
        self.launcher = launcher
        launcher.start { [self] failure in
            self.launcher = nil
            completion(failure)
        }
    }

    func run(name: String, password: String, deadline: UInt64, pingInterval: Double,
             completion: @escaping (Tallies) -> Void) {
        self.completion = completion
        tallies = Tallies()
        tallies.logins.startedAt = BenchClock.now()
        tallies.pings.startedAt = tallies.logins.startedAt
        running = loopSessions.count
        if pinger != nil { schedulePing(interval: pingInterval) }
        if running == 0 { finishIfIdle() }
        for session in loopSessions {
            guard session.isOpen else {
                tallies.logins.failure("login session closed before the run: \(session.closeReason ?? "?")")
                running -= 1
                finishIfIdle()
                continue
            }
            // A closed session gets no more replies: count it out so the run still ends.
            session.onClose = { [unowned self] reason in
                tallies.logins.failure("login session closed: \(reason)")
                running -= 1
                finishIfIdle()
            }
            login(session, name: name, password: password, deadline: deadline)
        }
    }

    private func login(_ session: BenchSession, name: String, password: String, deadline: UInt64) {
        guard session.isOpen else { return }
        guard BenchClock.now() < deadline else {
            session.onClose = nil
            running -= 1
            finishIfIdle()
            return
        }
        let started = BenchClock.now()
        session.request("LOGIN \(name) \(password)") { [unowned self, unowned session] reply in
            if reply.ok {
                tallies.logins.record(since: started)
            } else {
                tallies.logins.failure("LOGIN: \(reply.errorSummary)")
            }
            login(session, name: name, password: password, deadline: deadline)
        }
    }

    /// Every `interval` ms, one PING unless the last is still unanswered (that wait shows up
    /// in its latency anyway).
    private func schedulePing(interval: Double) {
        nodes.loop.schedule(after: interval / 1000) { [weak self] in
            guard let self, self.completion != nil, let pinger = self.pinger else { return }
            if !self.pingInFlight && pinger.isOpen {
                self.pingInFlight = true
                let started = BenchClock.now()
                pinger.request("PING") { [unowned self] reply in
                    self.pingInFlight = false
                    if reply.ok {
                        self.tallies.pings.record(since: started)
                    } else {
                        self.tallies.pings.failure("PING: \(reply.errorSummary)")
                    }
                }
            }
            self.schedulePing(interval: interval)
        }
    }

    private func finishIfIdle() {
        guard running == 0, let completion else { return }
        self.completion = nil
        completion(tallies)
    }
}

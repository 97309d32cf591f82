import ChorusNet

/// One loop's handshake loops: each connects, completes a full TLS handshake, sends
/// `AUTH TOKEN` and `QUIT` (text mode, pipelined, tagged) and waits for the server to
/// close, then starts over until the deadline. Loop thread only.
final class HandshakeShard: BenchShard {
    let index: Int
    let connector: ClientConnector
    private var slots: [BenchSession?] = []
    private var tally = RoundTripTally()
    private var running = 0
    private var completion: ((RoundTripTally) -> Void)?
    /// Enough failures to say the server is gone; stop instead of spinning.
    private let failureLimit = 100

    required init(index: Int, connector: ClientConnector) {
        self.index = index
        self.connector = connector
    }

    func run(loops: Int, token: String, deadline: UInt64, completion: @escaping (RoundTripTally) -> Void) {
        self.completion = completion
        tally = RoundTripTally()
        tally.startedAt = BenchClock.now()
        slots = Array(repeating: nil, count: loops)
        running = loops
        if loops == 0 { finishIfIdle() }
        for slot in 0..<loops { cycle(slot, token: token, deadline: deadline) }
    }

    private func cycle(_ slot: Int, token: String, deadline: UInt64) {
        slots[slot] = nil
        guard BenchClock.now() < deadline, tally.failures < failureLimit else {
            running -= 1
            finishIfIdle()
            return
        }
        let started = BenchClock.now()
        let session: BenchSession
        do {
            session = try BenchSession(connector: connector)
        } catch {
            tally.failure("\(error)")
            // Out of descriptors or ports: let the loop turn before trying again.
            connector.loop.schedule(after: 0.001) { [weak self] in self?.cycle(slot, token: token, deadline: deadline) }
            return
        }
        slots[slot] = session
        var quitAnswered = false
        var failure: String?
        session.request("AUTH \(token)") { reply in
            if !reply.ok { failure = "AUTH: \(reply.text)" }
        }
        session.request("QUIT") { reply in
            if reply.ok { quitAnswered = true } else { failure = failure ?? "QUIT: \(reply.text)" }
        }
        session.onClose = { [unowned self] reason in
            if let failure {
                tally.failure(failure)
            } else if quitAnswered {
                tally.record(since: started)
            } else {
                tally.failure("closed before QUIT was answered: \(reason)")
            }
            // After this call returns: the session is still inside its close callback.
            connector.loop.atEndOfTurn { [weak self] in self?.cycle(slot, token: token, deadline: deadline) }
        }
    }

    private func finishIfIdle() {
        guard running == 0, let completion else { return }
        self.completion = nil
        completion(tally)
    }
}

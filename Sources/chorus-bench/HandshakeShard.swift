import ChorusNet

/// One loop's handshake loops: each connects, completes a full TLS handshake, sends
/// `AUTH TOKEN` and `QUIT` (text mode, pipelined, tagged) and waits for the server to
/// close, then starts over until the deadline. Loop thread only.
final class HandshakeShard: BenchShard {
    let index: Int
    let nodes: NodeConnectors
    private var slots: [BenchSession?] = []
    /// Each slot's loop number, which picks its node.
    private var numbers: [Int] = []
    private var tally = RoundTripTally()
    private var running = 0
    private var completion: ((RoundTripTally) -> Void)?
    /// Enough failures to say the server is gone; stop instead of spinning.
    private let failureLimit = 100

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Runs loops `loops` (their numbers across all shards), each against its own node.
    func run(loops: [Int], token: String, deadline: UInt64, completion: @escaping (RoundTripTally) -> Void) {
        self.completion = completion
        numbers = loops
        tally = RoundTripTally()
        tally.startedAt = BenchClock.now()
        slots = Array(repeating: nil, count: loops.count)
        running = loops.count
        if loops.isEmpty { finishIfIdle() }
        for slot in 0..<loops.count { cycle(slot, token: token, deadline: deadline) }
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
            session = try BenchSession(connector: nodes.connector(for: numbers[slot]))
        } catch {
            tally.failure("\(error)")
            // Out of descriptors or ports: let the loop turn before trying again.
            nodes.loop.schedule(after: 0.001) { [weak self] in self?.cycle(slot, token: token, deadline: deadline) }
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
            nodes.loop.atEndOfTurn { [weak self] in self?.cycle(slot, token: token, deadline: deadline) }
        }
    }

    private func finishIfIdle() {
        guard running == 0, let completion else { return }
        self.completion = nil
        completion(tally)
    }
}

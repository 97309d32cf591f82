import ChorusNet

/// One loop's share of the idle sessions of the `connections` workload. Loop thread only.
final class ConnectionsShard: BenchShard {
    let index: Int
    let nodes: NodeConnectors
    private var sessions: [BenchSession] = []
    private var launcher: BoundedLauncher?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Opens sessions `numbers`, each on its own node with `MODE json` + `AUTH` with one of
    /// `tokens`, `parallel` at a time, and keeps them; the tally times each from connect to
    /// its AUTH reply.
    func open(numbers: [Int], tokens: [String], firstNumber: Int, parallel: Int,
              completion: @escaping (Result<RoundTripTally, BenchFailure>) -> Void) {
        var tally = RoundTripTally()
        tally.startedAt = BenchClock.now()
        let launcher = BoundedLauncher(total: numbers.count, parallel: parallel) { [self] index, done in
            let started = BenchClock.now()
            let token = tokens[(firstNumber + index) % tokens.count]
            SessionScript.open(connector: nodes.connector(for: numbers[index]), commands: ["AUTH \(token)"]) { result in
                switch result {
                case .failure(let failure):
                    tally.failure(failure.message)
                    done(failure)
                case .success(let opened):
                    tally.record(since: started)
                    self.sessions.append(opened.session)
                    done(nil)
                }
            }
        }
        self.launcher = launcher
        launcher.start { [self] failure in
            self.launcher = nil
            if let failure {
                completion(.failure(failure))
            } else {
                completion(.success(tally))
            }
        }
    }

    /// Every session answers a PING: all are still there and idle.
    func checkAll(completion: @escaping (BenchFailure?) -> Void) {
        PingBarrier.run(sessions, completion: completion)
    }

    var openCount: Int { sessions.filter(\.isOpen).count }
}

import ChorusNet
import ChorusProtocol

/// One loop's writers: each registered client owns a personal task (so no one else gets
/// its events) and reports progress on it, `window` requests in flight, until the
/// deadline. Every OK is a write the server has committed. Loop thread only.
final class WritesShard: BenchShard {
    private final class Writer {
        let session: BenchSession
        let task: Int
        var counter = 0
        var inFlight = 0
        var retired = false

        init(session: BenchSession, task: Int) {
            self.session = session
            self.task = task
        }
    }

    let index: Int
    let nodes: NodeConnectors
    private var writers: [Writer] = []
    private var launcher: BoundedLauncher?
    private var tally = RoundTripTally()
    private var deadline: UInt64 = 0
    private var busy = 0
    private var completion: ((RoundTripTally) -> Void)?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Registers clients `numbers`, each on its own node, and gives each a personal task.
    func prepare(numbers: [Int], namePrefix: String, password: String, parallel: Int,
                 completion: @escaping (Result<String, BenchFailure>) -> Void) {
        var tls = "unknown"
        let launcher = BoundedLauncher(total: numbers.count, parallel: parallel) { [self] index, done in
            let commands = ["REGISTER \(namePrefix)\(numbers[index]) \(password)", "TASK ADD me \"bench write\""]
            SessionScript.open(connector: nodes.connector(for: numbers[index]), commands: commands) { result in
                switch result {
                case .failure(let failure):
                    done(failure)
                case .success(let opened):
                    guard let task = (opened.replies[1]["task"] as? [String: Any])?["id"] as? Int else {
                        done(BenchFailure("TASK ADD: no task id in the reply"))
                        return
                    }
                    if let connection = opened.session.connection {
                        tls = "\(connection.protocolVersion) \(connection.cipherName)"
                    }
                    self.writers.append(Writer(session: opened.session, task: task))
                    done(nil)
                }
            }
        }
        self.launcher = launcher
        launcher.start { [self] failure in
            self.launcher = nil
            completion(failure.map { .failure($0) } ?? .success(tls))
        }
    }

    func run(window: Int, deadline: UInt64, completion: @escaping (RoundTripTally) -> Void) {
        self.deadline = deadline
        self.completion = completion
        tally = RoundTripTally()
        tally.startedAt = BenchClock.now()
        busy = writers.count
        if busy == 0 { completion(tally) }
        for writer in writers {
            writer.session.onClose = { [unowned self, unowned writer] reason in
                self.tally.failure("session closed: \(reason)")
                self.retire(writer)
            }
            for _ in 0..<window { write(writer) }
        }
    }

    private func write(_ writer: Writer) {
        guard BenchClock.now() < deadline, writer.session.isOpen else {
            if writer.inFlight == 0 { retire(writer) }
            return
        }
        writer.counter += 1
        writer.inFlight += 1
        // 1...99 and never the same twice in a row, so every request changes the row.
        let percent = writer.counter % 99 + 1
        let started = BenchClock.now()
        writer.session.request(building: { out in
            out.append(contentsOf: "TASK PROGRESS ".utf8)
            DecimalBytes.append(UInt64(writer.task), to: &out)
            out.append(UInt8(ascii: " "))
            DecimalBytes.append(UInt64(percent), to: &out)
        }, { [unowned self, unowned writer] reply in
            writer.inFlight -= 1
            if reply.ok {
                tally.record(since: started)
            } else {
                tally.failure("TASK PROGRESS: \(reply.errorSummary)")
            }
            write(writer)
        })
    }

    /// A writer is done: deadline passed and nothing in flight, or its session closed.
    private func retire(_ writer: Writer) {
        guard !writer.retired else { return }
        writer.retired = true
        busy -= 1
        guard busy == 0, let completion else { return }
        self.completion = nil
        for writer in writers { writer.session.onClose = nil }
        completion(tally)
    }
}

import ChorusNet
import ChorusProtocol

/// One loop's part of `tasks`: on shard 0, the room and its tasks (top-level ones, the
/// first of them parents of subtasks); on every shard, readers logged in as the room's
/// owner listing it with `TASKS R all`, `window` requests in flight, until the deadline.
/// Loop thread only.
final class TasksShard: BenchShard {
    /// What the set-up made, for the readers.
    struct Room: Sendable {
        let id: Int
        let owner: String
        let tasks: Int
    }

    private final class Reader {
        let session: BenchSession
        var inFlight = 0
        var retired = false

        init(session: BenchSession) {
            self.session = session
        }
    }

    let index: Int
    let nodes: NodeConnectors
    private var setUp: BenchSession?
    private var readers: [Reader] = []
    private var launcher: BoundedLauncher?
    private var tally = RoundTripTally()
    private var deadline: UInt64 = 0
    private var busy = 0
    private var room = 0
    private var expected = 0
    private var completion: ((RoundTripTally) -> Void)?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Registers `owner`, creates a room, adds `tasks` top-level tasks, and gives each of
    /// the first `parents` of them `subtasks` subtasks of 1-3 points, all pipelined on one
    /// session; the set-up session stays open (it is the room's only other reader of events).
    func populate(owner: String, password: String, tasks: Int, parents: Int, subtasks: Int,
                  completion: @escaping (Result<Room, BenchFailure>) -> Void) {
        let commands = ["REGISTER \(owner) \(password)", "ROOM CREATE \(owner) home"]
        SessionScript.open(connector: nodes.connector(for: 0), commands: commands) { [self] result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let opened):
                guard let room = (opened.replies[1]["room"] as? [String: Any])?["id"] as? Int else {
                    completion(.failure(BenchFailure("ROOM CREATE: no room id in the reply")))
                    return
                }
                setUp = opened.session
                add(tasks: tasks, parents: parents, subtasks: subtasks, room: room, session: opened.session) { failure in
                    if let failure {
                        completion(.failure(failure))
                    } else {
                        completion(.success(Room(id: room, owner: owner, tasks: tasks + parents * subtasks)))
                    }
                }
            }
        }
    }

    private func add(tasks: Int, parents: Int, subtasks: Int, room: Int, session: BenchSession,
                     completion: @escaping (BenchFailure?) -> Void) {
        var parentIDs: [Int?] = Array(repeating: nil, count: min(parents, tasks))
        var waiting = tasks
        var failed = false
        func fail(_ message: String) {
            guard !failed else { return }
            failed = true
            completion(BenchFailure(message))
        }
        func addSubtasks() {
            var left = parentIDs.count * subtasks
            if left == 0 { completion(nil); return }
            for (number, parent) in parentIDs.enumerated() {
                for sub in 0..<subtasks {
                    let points = (number + sub) % 3 + 1
                    session.request("TASK ADD \(room) \"part \(sub) of \(number)\" parent=\(parent!) points=\(points)") { reply in
                        guard reply.ok else { return fail("TASK ADD (subtask): \(reply.errorSummary)") }
                        left -= 1
                        if left == 0 && !failed { completion(nil) }
                    }
                }
            }
        }
        for number in 0..<tasks {
            session.request("TASK ADD \(room) \"chore \(number)\" points=\(number % 4)") { reply in
                guard reply.ok else { return fail("TASK ADD: \(reply.errorSummary)") }
                if number < parentIDs.count {
                    guard let id = (reply.object()?["task"] as? [String: Any])?["id"] as? Int else {
                        return fail("TASK ADD: no task id in the reply")
                    }
                    parentIDs[number] = id
                }
                waiting -= 1
                if waiting == 0 && !failed { addSubtasks() }
            }
        }
    }

    /// Opens `count` reader sessions logged in as the room's owner.
    func prepare(count: Int, firstNumber: Int, room: Room, password: String, parallel: Int,
                 completion: @escaping (Result<String, BenchFailure>) -> Void) {
        self.room = room.id
        expected = room.tasks
        var tls = "unknown"
        let launcher = BoundedLauncher(total: count, parallel: parallel) { [self] index, done in
            SessionScript.open(connector: nodes.connector(for: firstNumber + index), commands: ["LOGIN \(room.owner) \(password)"]) { result in
                switch result {
                case .failure(let failure):
                    done(failure)
                case .success(let opened):
                    if let connection = opened.session.connection {
                        tls = "\(connection.protocolVersion) \(connection.cipherName)"
                    }
                    self.readers.append(Reader(session: opened.session))
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

    /// One listing first, checked for every task, outside the measured phase.
    func check(completion: @escaping (BenchFailure?) -> Void) {
        guard let reader = readers.first else { return completion(nil) }
        reader.session.request("TASKS \(room) all") { [expected] reply in
            guard reply.ok else { return completion(BenchFailure("TASKS: \(reply.errorSummary)")) }
            let listed = (reply.object()?["tasks"] as? [Any])?.count ?? -1
            completion(listed == expected ? nil : BenchFailure("TASKS listed \(listed) tasks, not \(expected)"))
        }
    }

    func run(window: Int, deadline: UInt64, completion: @escaping (RoundTripTally) -> Void) {
        self.deadline = deadline
        self.completion = completion
        tally = RoundTripTally()
        tally.startedAt = BenchClock.now()
        busy = readers.count
        if busy == 0 { completion(tally) }
        for reader in readers {
            reader.session.onClose = { [unowned self, unowned reader] reason in
                self.tally.failure("session closed: \(reason)")
                self.retire(reader)
            }
            for _ in 0..<window { read(reader) }
        }
    }

    private func read(_ reader: Reader) {
        guard BenchClock.now() < deadline, reader.session.isOpen else {
            if reader.inFlight == 0 { retire(reader) }
            return
        }
        reader.inFlight += 1
        let started = BenchClock.now()
        reader.session.request(building: { out in
            out.append(contentsOf: "TASKS ".utf8)
            DecimalBytes.append(UInt64(room), to: &out)
            out.append(contentsOf: " all".utf8)
        }, { [unowned self, unowned reader] reply in
            reader.inFlight -= 1
            if reply.ok {
                tally.record(since: started)
            } else {
                tally.failure("TASKS: \(reply.errorSummary)")
            }
            read(reader)
        })
    }

    /// A reader is done: deadline passed and nothing in flight, or its session closed.
    private func retire(_ reader: Reader) {
        guard !reader.retired else { return }
        reader.retired = true
        busy -= 1
        guard busy == 0, let completion else { return }
        self.completion = nil
        for reader in readers { reader.session.onClose = nil }
        completion(tally)
    }
}

import ChorusNet
import ChorusProtocol

/// One loop's part of the fan-out workload: its members' sessions, the sending of its
/// senders, and the counting and timing of what its members receive. Loop thread only.
final class FanoutShard: BenchShard {
    struct RoomSetup: Sendable {
        let room: Int
        let code: String
        let tls: String
    }

    struct Plan: Sendable {
        let room: Int
        let senders: Int
        let messages: Int
        let window: Int
        let payload: Int
        /// Nodes the members are spread over: with more than one, latency is also split
        /// into same-node and cross-node deliveries.
        let nodes: Int
    }

    struct Tally: Sendable {
        var delivered = 0
        var expected = 0
        var duplicates = 0
        var acked = 0
        var failures = 0
        var firstFailure: String?
        var startedAt: UInt64 = 0
        var lastProgressAt: UInt64 = 0
        var deliveryLatency = LatencyHistogram()
        var replyLatency = LatencyHistogram()
        var byNode = NodeLatencies()
    }

    private static let messageEvent = Array(#"{"type":"event","event":"message""#.utf8)
    private static let textEvent = Array("* ".utf8)
    private var textMode = false

    let index: Int
    let nodes: NodeConnectors
    private var members: [FanoutMember] = []
    private var plan: Plan?
    private var progress: RunProgress?
    private var tally = Tally()
    private var outstanding = 0
    private var launcher: BoundedLauncher?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    // MARK: Set-up

    /// Registers the owner (member 0, so on the first node), creates the room and an invite
    /// code for the rest.
    func createRoom(owner: String, password: String, roomName: String,
                    completion: @escaping (Result<RoomSetup, BenchFailure>) -> Void) {
        SessionScript.open(connector: nodes.connector(for: 0), commands: ["REGISTER \(owner) \(password)", "ROOM CREATE \(roomName)"]) { result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let opened):
                guard let room = (opened.replies[1]["room"] as? [String: Any])?["id"] as? Int else {
                    completion(.failure(BenchFailure("ROOM CREATE: no room id in the reply")))
                    return
                }
                let session = opened.session
                session.request("ROOM INVITE \(room)") { reply in
                    guard reply.ok, let code = reply.object()?["code"] as? String else {
                        completion(.failure(BenchFailure("ROOM INVITE: \(reply.errorSummary)")))
                        return
                    }
                    self.members.append(FanoutMember(number: 0, session: session))
                    let tls = session.connection.map { "\($0.protocolVersion) \($0.cipherName)" } ?? "unknown"
                    completion(.success(RoomSetup(room: room, code: code, tls: tls)))
                }
            }
        }
    }

    /// Registers members `numbers` and joins them with the invite code, `parallel` at a time,
    /// each on its own node.
    func join(numbers: [Int], namePrefix: String, password: String, code: String, parallel: Int,
              completion: @escaping (BenchFailure?) -> Void) {
        let launcher = BoundedLauncher(total: numbers.count, parallel: parallel) { [self] index, done in
            let number = numbers[index]
            let commands = ["REGISTER \(namePrefix)\(number) \(password)", "ROOM JOIN \(code)"]
            SessionScript.open(connector: nodes.connector(for: number), commands: commands) { result in
                switch result {
                case .failure(let failure):
                    done(BenchFailure("member \(number): \(failure.message)"))
                case .success(let opened):
                    self.members.append(FanoutMember(number: number, session: opened.session))
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

    /// Members read events as a person does, one text line each (`MODE text`); set-up
    /// itself needs JSON replies, so this comes after it. With `zones`, each member first
    /// chooses one (`NOTIFY tz=`), in turn by number, so its lines are made in that zone.
    func switchToTextMode(zones: [String] = [], completion: @escaping (BenchFailure?) -> Void) {
        textMode = true
        var waiting = members.count * (zones.isEmpty ? 1 : 2)
        var failure: BenchFailure?
        guard waiting > 0 else { return completion(nil) }
        for member in members {
            if !zones.isEmpty {
                member.session.request("NOTIFY tz=\(zones[member.number % zones.count])") { reply in
                    if !reply.ok && failure == nil { failure = BenchFailure("NOTIFY tz=: \(reply.errorSummary)") }
                    waiting -= 1
                    if waiting == 0 { completion(failure) }
                }
            }
            member.session.request("MODE text") { reply in
                if !reply.ok && failure == nil { failure = BenchFailure("MODE text: \(reply.errorSummary)") }
                waiting -= 1
                if waiting == 0 { completion(failure) }
            }
        }
    }

    /// Waits until every event set-up caused has arrived.
    func drain(completion: @escaping (BenchFailure?) -> Void) {
        PingBarrier.run(members.map(\.session), completion: completion)
    }

    // MARK: Measuring

    /// Starts counting deliveries and sends each local sender's first `window` messages.
    func start(_ plan: Plan, progress: RunProgress) {
        self.plan = plan
        self.progress = progress
        tally = Tally()
        tally.startedAt = BenchClock.now()
        tally.lastProgressAt = tally.startedAt
        outstanding = 0
        for member in members {
            member.prepare(senders: plan.senders, messages: plan.messages)
            tally.expected += member.expected
            outstanding += member.expected + (member.number < plan.senders ? plan.messages : 0)
            // unowned(unsafe): the shard keeps its members, and `finish` clears this before
            // either could go; a checked unowned reference costs a retain on every line.
            member.session.onEvent = { [unowned(unsafe) self, unowned(unsafe) member] line, readAt in
                self.receive(line, by: member, readAt: readAt)
            }
            member.session.onClose = { [unowned self, unowned member] reason in
                self.fail("member \(member.number)'s session closed: \(reason)")
            }
        }
        if outstanding == 0 { progress.shardFinished() }
        for member in members where member.number < plan.senders {
            for _ in 0..<min(plan.window, plan.messages) { send(from: member) }
        }
    }

    private func send(from member: FanoutMember) {
        guard let plan else { return }
        let sequence = member.takeSequence()
        let sentAt = BenchClock.now()
        member.session.request(building: { out in
            out.append(contentsOf: "SAY ".utf8)
            DecimalBytes.append(UInt64(plan.room), to: &out)
            out.append(UInt8(ascii: " "))
            FanoutMember.appendText(to: &out, sentAt: sentAt, sender: member.number, sequence: sequence,
                                    payload: plan.payload)
        }, { [unowned self, unowned member] reply in
            self.acknowledged(reply, for: member, sentAt: sentAt)
        })
    }

    private func acknowledged(_ reply: ReplyLine, for member: FanoutMember, sentAt: UInt64) {
        guard let plan else { return }
        guard reply.ok else {
            fail("SAY from member \(member.number): \(reply.errorSummary)")
            return
        }
        let now = BenchClock.now()
        if now >= sentAt { tally.replyLatency.record(nanoseconds: now - sentAt) }
        member.acked += 1
        tally.acked += 1
        if member.sent < plan.messages { send(from: member) }
        advance(now)
    }

    private func receive(_ line: UnsafeRawBufferPointer, by member: FanoutMember, readAt now: UInt64) {
        guard let plan, line.hasPrefix(textMode ? Self.textEvent : Self.messageEvent), let text = FanoutMember.parseText(line),
              text.sender < plan.senders, text.sequence < plan.messages else { return }
        guard member.markReceived(sender: text.sender, sequence: text.sequence) else {
            member.duplicates += 1
            tally.duplicates += 1
            return
        }
        if now >= text.sentAt {
            tally.deliveryLatency.record(nanoseconds: now - text.sentAt)
            if plan.nodes > 1 {
                tally.byNode.record(nanoseconds: now - text.sentAt, sender: text.sender, receiver: member.number, nodes: plan.nodes)
            }
        }
        member.received += 1
        tally.delivered += 1
        advance(now)
    }

    private func advance(_ now: UInt64) {
        tally.lastProgressAt = now
        progress?.count()
        outstanding -= 1
        if outstanding == 0 { progress?.shardFinished() }
    }

    private func fail(_ message: String) {
        tally.failures += 1
        if tally.firstFailure == nil { tally.firstFailure = message }
        progress?.fail()
    }

    /// What this shard counted; sending stops.
    func finish() -> Tally {
        plan = nil
        for member in members {
            member.session.onEvent = nil
            member.session.onClose = nil
        }
        return tally
    }
}

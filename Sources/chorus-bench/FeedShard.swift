import ChorusNet

/// One loop's part of `feed`: on shard 0, a room with `tasks` tasks that have due dates
/// (every other one all-day, the rest at a time) and its calendar feed's secret path; on
/// every shard, keep-alive HTTPS readers fetching that feed one request at a time until
/// the deadline, with or without `If-None-Match`. Loop thread only.
final class FeedShard: BenchShard {
    /// What the set-up made, for the readers.
    struct Feed: Sendable {
        let path: String
        let tasks: Int
    }

    /// One measured phase's counts on this loop.
    struct Tally: Sendable {
        var roundTrips = RoundTripTally()
        var bodyBytes = 0
    }

    let index: Int
    let nodes: NodeConnectors
    private var setUp: BenchSession?
    private var readers: [FeedReader] = []
    private var path = ""
    private var tally = Tally()
    private var busy = 0
    private var completion: ((Tally) -> Void)?

    required init(index: Int, nodes: NodeConnectors) {
        self.index = index
        self.nodes = nodes
    }

    /// Registers `owner`, creates a room, adds `tasks` tasks with due dates (pipelined on
    /// one session) and links the room's feed.
    func populate(owner: String, password: String, tasks: Int, completion: @escaping (Result<Feed, BenchFailure>) -> Void) {
        SessionScript.open(connector: nodes.connector(for: 0), commands: ["REGISTER \(owner) \(password)", "ROOM CREATE \(owner) home"]) { [self] result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let opened):
                guard let room = (opened.replies[1]["room"] as? [String: Any])?["id"] as? Int else {
                    return completion(.failure(BenchFailure("ROOM CREATE: no room id in the reply")))
                }
                setUp = opened.session
                var left = tasks
                var failed = false
                for number in 0..<tasks {
                    // Spread over a year from next month: all-day and timed, some with points.
                    let month = 1 + number % 12, day = 1 + number % 28
                    let due = String(format: "2027-%02d-%02d", month, day) + (number % 2 == 0 ? "" : "T18:30")
                    opened.session.request("TASK ADD \(room) \"chore \(number)\" due=\(due) points=\(number % 4) notes=\"step one, step two\"") { [self] reply in
                        guard !failed else { return }
                        guard reply.ok else {
                            failed = true
                            return completion(.failure(BenchFailure("TASK ADD: \(reply.errorSummary)")))
                        }
                        left -= 1
                        if left == 0 { link(room: room, tasks: tasks, completion: completion) }
                    }
                }
            }
        }
    }

    private func link(room: Int, tasks: Int, completion: @escaping (Result<Feed, BenchFailure>) -> Void) {
        setUp?.request("CALENDAR LINK \(room)") { reply in
            guard reply.ok, let url = reply.object()?["url"] as? String,
                  let slash = url.dropFirst("https://".count).firstIndex(of: "/")
            else { return completion(.failure(BenchFailure("CALENDAR LINK: \(reply.errorSummary)"))) }
            completion(.success(Feed(path: String(url[slash...]), tasks: tasks)))
        }
    }

    /// Opens `count` readers (ALPN `http/1.1` through `tls`), each fetching the feed once;
    /// every answer must be 200, and the first must hold one VEVENT per task. The feed's
    /// ETag, for the conditional phase.
    func prepare(count: Int, firstNumber: Int, feed: Feed, tls: TLSClientContext,
                 completion: @escaping (Result<String, BenchFailure>) -> Void) {
        path = feed.path
        var left = count
        var etag = ""
        var failed = false
        func fail(_ message: String) {
            guard !failed else { return }
            failed = true
            completion(.failure(BenchFailure(message)))
        }
        if count == 0 { return completion(.success("")) }
        for number in firstNumber..<(firstNumber + count) {
            let address = nodes.all[NodeAssignment.node(of: number, nodes: nodes.count)].address
            let reader: FeedReader
            do {
                reader = try FeedReader(connector: ClientConnector(loop: nodes.loop, address: address, tls: tls))
            } catch {
                return fail("cannot connect a feed reader: \(error)")
            }
            readers.append(reader)
            reader.onClose = { reason in fail("a feed reader closed during set-up: \(reason)") }
            reader.get(path, ifNoneMatch: nil) { answer in
                guard answer.status == 200, let tag = answer.etag else {
                    return fail("GET \(feed.path.prefix(14))…: status \(answer.status), ETag \(answer.etag ?? "none")")
                }
                if number == firstNumber {
                    let events = String(decoding: answer.body, as: UTF8.self).components(separatedBy: "BEGIN:VEVENT").count - 1
                    if events != feed.tasks { return fail("the feed has \(events) events, not \(feed.tasks)") }
                }
                etag = tag
                left -= 1
                if left == 0 && !failed { completion(.success(etag)) }
            }
        }
    }

    /// Every reader fetches the feed until the deadline: with `etag` as `If-None-Match`
    /// (each answer must be 304) or without (each must be 200).
    func run(ifNoneMatch etag: String?, deadline: UInt64, completion: @escaping (Tally) -> Void) {
        tally = Tally()
        tally.roundTrips.startedAt = BenchClock.now()
        self.completion = completion
        busy = readers.count
        if busy == 0 { return finish() }
        for reader in readers {
            reader.onClose = { [unowned self] reason in
                tally.roundTrips.failure("a feed reader closed: \(reason)")
                retire()
            }
            fetch(reader, ifNoneMatch: etag, deadline: deadline)
        }
    }

    private func fetch(_ reader: FeedReader, ifNoneMatch etag: String?, deadline: UInt64) {
        guard BenchClock.now() < deadline, reader.isOpen else {
            reader.onClose = nil
            return retire()
        }
        let started = BenchClock.now()
        let expected = etag == nil ? 200 : 304
        reader.get(path, ifNoneMatch: etag) { [unowned self] answer in
            if answer.status == expected {
                tally.roundTrips.record(since: started)
                tally.bodyBytes += answer.bodyLength
            } else {
                tally.roundTrips.failure("GET feed: status \(answer.status), not \(expected)")
            }
            fetch(reader, ifNoneMatch: etag, deadline: deadline)
        }
    }

    private func retire() {
        busy -= 1
        if busy == 0 { finish() }
    }

    private func finish() {
        guard let completion else { return }
        self.completion = nil
        completion(tally)
    }
}

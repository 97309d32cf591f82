import ChorusClient
import ChorusLocking
import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// Several `chorusd --postgres` subprocesses on one database, reached over TLS as clients
/// reach them (one certificate for all, as behind a load balancer), and a connection of
/// the test's own for looking at the database directly.
final class NodeCluster {
    let database: String
    private(set) var nodes: [ChorusNode] = []

    /// Starts one node per name; `postgres` gives a node's `--postgres` (a proxy's, say).
    init(database: String, names: [String], flags: [String] = [],
         postgres: (String) -> String = { _ in "" }) throws {
        self.database = database
        func conninfo(_ name: String) -> String {
            let chosen = postgres(name)
            return chosen.isEmpty ? database : chosen
        }
        let first = try ChorusNode.start(postgres: conninfo(names[0]), name: names[0], flags: flags)
        nodes = [first]
        let rest = try names.dropFirst().map {
            try ChorusNode.launch(postgres: conninfo($0), name: $0, flags: flags, certificateOf: first)
        }
        for node in rest { try node.waitUntilListening() }
        nodes += rest
    }

    deinit {
        for node in nodes where node.isRunning { node.stop() }
    }

    func node(_ name: String) -> ChorusNode { nodes.first { $0.name == name }! }

    /// A connected text-mode client of `node`, greeting read.
    func client(_ node: String) throws -> TestClient {
        let node = self.node(node)
        return try TestClient(port: node.port, certificatePath: node.certificatePath)
    }

    /// A JSON-mode session on `node` of a new account (or, `register: false`, of an existing one).
    /// In JSON mode before it logs in: events that come right after the login (a flood's
    /// lines, held notices) then come as JSON too, not as text lines a JSON reader trips on
    /// (a clean-clone CI run caught one between LOGIN and MODE json).
    func device(_ name: String, on node: String, register: Bool = true, label: String? = nil) throws -> Device {
        let device = try Device(client: try client(node), user: name, label: label ?? "\(name)@\(node)")
        let verb = register ? "REGISTER" : "LOGIN"
        try device.ok("\(verb) \(name) \"\(defaultPassword)\"")
        return device
    }

    /// A connection of the test's own to the cluster's database.
    func inspector() throws -> PostgresConnection { try PostgresConnection(database) }

    /// Every event id in the log, in order.
    func eventIDs() throws -> [Int64] {
        try inspector().query("SELECT id FROM events ORDER BY id").rows.map { try $0.int64(0) ?? -1 }
    }

    /// Whether `node`'s writer has the event counter row locked in an open transaction
    /// (the row's xmax is that transaction's id), as the node is now.
    func holdsCounter(_ node: String) throws -> Bool {
        let count = try inspector().query("""
            SELECT count(*) FROM pg_stat_activity a, event_counter c
             WHERE a.application_name = $1 AND a.backend_xid = c.xmax
            """, [.text("chorusd \(node)")]).firstRow().int64(0)
        return (count ?? 0) > 0
    }

    /// Pauses `node` (SIGSTOP) at a moment its writer holds the counter, resuming and
    /// trying again until it does; false if that never happened.
    func pauseHoldingTheCounter(_ node: String, tries: Int = 400) throws -> Bool {
        let paused = self.node(node)
        for _ in 0..<tries {
            paused.pause()
            if try holdsCounter(node) { return true }
            paused.resume()
            usleep(3_000)
        }
        return false
    }
}

/// Every event `device` may see after `after`, paging `SYNC` to its end.
func syncAll(_ device: Device, after: Int = 0) throws -> [JSON] {
    var events: [JSON] = []
    var last = after
    while true {
        let page = try device.ok("SYNC \(last) 500")
        events += page["events"] as? [JSON] ?? []
        guard page["more"] as? Bool == true, let next = page["last"] as? Int else { return events }
        last = next
    }
}

/// The text of a message event.
func messageText(_ event: JSON) -> String? {
    guard event["event"] as? String == "message" else { return nil }
    return object(event["message"])["text"] as? String
}

/// One session sending `SAY room TEXT` lines on a thread of its own, `chunk` at a time
/// (pipelined), reading each chunk's replies before the next, until `stop()` or `limit`
/// lines, or until its connection ends (a killed node). Texts are `label n`. Events that
/// come meanwhile stay in the client's queue.
final class SayFlood: @unchecked Sendable {
    // Safety: `device` is used only by the flood's thread between start and `wait`.
    private let device: Device
    private let room: Int
    private let label: String
    private let chunk: Int
    private let limit: Int
    private let pause: useconds_t
    private let stopping = Locked(false)
    private let done = DispatchSemaphore(value: 0)
    /// Each text sent and the code of its reply (200 for OK; nil when none came).
    private let results = Locked<[(text: String, code: Int?)]>([])

    init(_ device: Device, room: Int, label: String, chunk: Int = 5, limit: Int = 100_000, pause: useconds_t = 10_000) {
        self.device = device
        self.room = room
        self.label = label
        self.chunk = chunk
        self.limit = limit
        self.pause = pause
    }

    func start() {
        let thread = Thread { [self] in
            run()
            done.signal()
        }
        thread.start()
    }

    func stop() { stopping.withLock { $0 = true } }

    /// Waits for the thread (stopping it first unless `stop` is false); the results.
    @discardableResult
    func wait(stop: Bool = true, timeout: Double = 60) -> [(text: String, code: Int?)] {
        if stop { self.stop() }
        #expect(done.wait(timeout: .now() + timeout) == .success, "\(label): the flood did not end")
        return results.withLock { $0 }
    }

    /// Replies so far.
    var count: Int { results.withLock { $0.count } }

    var acknowledged: [String] { results.withLock { $0.filter { $0.code == 200 }.map(\.text) } }

    private func run() {
        var sent = 0
        while sent < limit && !stopping.withLock({ $0 }) {
            let texts = (sent..<min(limit, sent + chunk)).map { "\(label) \($0)" }
            sent += texts.count
            do {
                try device.client.connection.sendRaw(Array(texts.map { "SAY \(room) \($0)\r\n" }.joined().utf8))
                for text in texts {
                    let reply = try Device.decode(try device.client.reply(timeout: 30).last ?? "")
                    let code = reply["type"] as? String == "ok" ? 200 : reply["code"] as? Int ?? -1
                    results.withLock { $0.append((text, code)) }
                }
            } catch {
                return
            }
            if pause > 0 { usleep(pause) }
        }
    }
}

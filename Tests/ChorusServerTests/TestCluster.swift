import ChorusPostgres
import ChorusTestSupport
import Foundation
import Testing

/// Several `chorusd --postgres` nodes on one throwaway database, for the cluster tests of
/// the throttle and the notices, with a connection of the test's own to look at (or
/// steer) the shared rows.
final class TestCluster {
    static let password = "correct horse battery staple"

    let database: String
    private(set) var nodes: [ChorusNode]
    let sql: PostgresConnection

    /// Flags and environment every node is started with.
    let flags: [String]
    let environment: [String: String]

    init(nodes count: Int, flags: [String] = [], environment: [String: String] = [:]) throws {
        database = try ThrowawayPostgres.sharedCluster().makeDatabase()
        nodes = []
        sql = try PostgresConnection(database)
        self.flags = flags
        self.environment = environment
        try startAll(count)
    }

    /// Starts `count` nodes at the same moment (new folders) and waits until each listens.
    func startAll(_ count: Int) throws {
        let launched = try (0..<count).map {
            try ChorusNode.launch(postgres: database, name: "n\($0)", flags: flags, environment: environment)
        }
        for node in launched { try node.waitUntilListening() }
        nodes = launched
    }

    /// SIGKILLs every node and waits for each to end.
    func killAll() {
        for node in nodes { node.kill() }
        for node in nodes { node.waitForExit() }
    }

    /// A text-mode client on node `index`, logged in (registered first when `register`).
    func client(_ user: String, on index: Int, register: Bool = false) throws -> TestClient {
        let node = nodes[index]
        let client = try TestClient(port: node.port, certificatePath: node.certificatePath)
        let verb = register ? "REGISTER" : "LOGIN"
        let reply = try client.last("\(verb) \(user) \"\(Self.password)\"")
        #expect(reply.hasPrefix("OK"), "\(verb) \(user) on n\(index): \(reply)")
        return client
    }

    /// A JSON-mode device on node `index`, in JSON mode before it logs in (notices held for
    /// the user come right after the login's reply).
    func device(_ user: String, on index: Int, register: Bool = false) throws -> Device {
        let node = nodes[index]
        let device = try Device(client: try TestClient(port: node.port, certificatePath: node.certificatePath), user: user,
                                label: "\(user)@n\(index)")
        try device.ok("\(register ? "REGISTER" : "LOGIN") \(user) \"\(Self.password)\"")
        return device
    }

    /// One integer from the shared database.
    func count(_ query: String, _ parameters: [PostgresValue] = []) throws -> Int {
        Int(try sql.query(query, parameters).firstRow().int64(0) ?? 0)
    }

    /// Waits until `query` counts `expected`; the last count.
    @discardableResult
    func waitForCount(_ query: String, _ parameters: [PostgresValue] = [], toBe expected: Int, timeout: Double = 15) throws -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        var last = try count(query, parameters)
        while last != expected && Date() < deadline {
            usleep(50_000)
            last = try count(query, parameters)
        }
        return last
    }

    /// Makes these tasks owed their overdue notice at `at` (unix seconds), behind every
    /// node's back: only the schedulers' own checks can find it.
    func setDue(_ tasks: [Int], at: Int64) throws {
        let ids = "{" + tasks.map(String.init).joined(separator: ",") + "}"
        _ = try sql.execute("UPDATE tasks SET due_at = $1 WHERE id = ANY($2::bigint[])", [.int(at), .text(ids)])
    }

    static var nowSeconds: Int64 { Int64(Date().timeIntervalSince1970) }

    deinit {
        for node in nodes where node.isRunning { node.kill() }
        sql.close()
    }
}

extension Device {
    /// Reads events until `count` notices named `name` came (others are skipped), then
    /// waits `settle` seconds (a copy from another node's check would come by then) and
    /// drains to the PING barrier, adding any more: task id → how many times it came.
    func notices(_ name: String, count: Int, timeout: Double = 20, settle: Double = 2) throws -> [Int: Int] {
        var seen: [Int: Int] = [:]
        var total = 0
        let deadline = Date().addingTimeInterval(timeout)
        while total < count && Date() < deadline {
            guard let event = try? event(timeout: max(0.1, deadline.timeIntervalSinceNow)) else { break }
            guard event["event"] as? String == name, let task = (event["task"] as? JSON)?["id"] as? Int else { continue }
            seen[task, default: 0] += 1
            total += 1
        }
        Thread.sleep(forTimeInterval: settle)
        for event in try drain() where event["event"] as? String == name {
            if let task = (event["task"] as? JSON)?["id"] as? Int { seen[task, default: 0] += 1 }
        }
        return seen
    }
}

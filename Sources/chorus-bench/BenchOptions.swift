/// `chorus-bench`'s command line: a workload name, then `--flag value` or `--flag=value`.
struct BenchOptions: Sendable {
    enum Workload: String, Sendable, CaseIterable {
        case fanout, connections, handshake, writes, login, tasks, feed
    }

    var workload = Workload.fanout
    var host = "127.0.0.1"
    var port = 7667
    /// `--servers`: several nodes of one cluster; sessions go round robin by number.
    var servers: [ServerAddress] = []
    private var addressGiven = false
    var spawn: String?
    /// `--server-pid PID[,PID...]`: one per node for the CPU figures (summed, and per process).
    var serverPIDs: [Int32] = []
    var caFile: String?
    var insecure = false
    var threads = 1
    var members = 100
    var senders = 10
    var messages = 200
    var window: Int?
    var payload = 64
    /// fanout: the output mode members read events in (`json`, as a bot; `text`, as a person).
    var mode = "json"
    /// `--tz Z1,Z2,...`: fanout members in text mode choose these zones (`NOTIFY tz=`), in
    /// turn by member number; none keeps the server's zone.
    var zones: [String] = []
    /// `--transport`: line sessions, or WebSocket sessions through the web door.
    var transport = BenchTransport.line
    /// `--healthz MS`: fanout polls `GET /healthz` every MS ms while it measures.
    var healthzInterval: Double?
    var sessions = 2000
    var accounts = 100
    var parallel = 64
    var loops: Int?
    var seconds = 10.0
    var clients = 8
    /// tasks: the room's top-level tasks (2000 unless given), how many of them are parents,
    /// and their subtasks each; feed: the room's tasks (200 unless given).
    var tasks: Int?
    var parents = 500
    var subtasks = 4
    var pingInterval = 10.0
    var settle = 2.0
    var timeout = 600.0
    var stall = 10.0
    var scryptLogN: Int?
    var serverArguments: [String] = []
    var keepData = false
    var probe: MeasureProbe?

    /// In-flight requests per session: 16 for fanout, 1 (plain round trips) otherwise.
    var effectiveWindow: Int { window ?? (workload == .fanout ? 16 : 1) }

    static let usage = """
        usage: chorus-bench fanout|connections|handshake|writes|login|tasks|feed [flags]

        server (one of):
          --spawn PATH            start PATH (a chorusd) on a temporary folder with --port 0,
                                  cheap hashes (--scrypt-log-n 10, except login: default 17),
                                  no rate or per-address limits, a large --sendq; stop it at the end
          --host H --port N       use a running server (default 127.0.0.1:7667)
          --servers H:P,H:P,...   use the running nodes of one cluster (one database): session
                                  (member, client, loop) i talks to node i mod nodes
          --server-pid PID[,PID]  its process (or each node's), for server CPU and RSS figures
        certificate (one of, unless --spawn):
          --ca FILE               verify the server against this PEM certificate or CA (a file
                                  may hold several: one per node)
          --insecure              accept any certificate
        sizes:
          --members N --senders S --messages M --window W --payload P   fanout (100, 10, 200, 16, 64)
          --mode json|text                                              fanout: how members read events (json)
          --tz ZONE[,ZONE...]                                           fanout --mode text: members' zones, in turn (the server's)
          --sessions C --accounts U --parallel P                        connections (2000, 100, 64)
          --loops K --seconds D                                         handshake, login (4, 10)
          --clients T --seconds D --window W                            writes, tasks (8, 10, 1)
          --tasks N --parents P --subtasks K                            tasks: the listed room (2000, 500, 4)
          --tasks N --clients T --seconds D                             feed: tasks with due dates, HTTPS
                                                                        readers, each phase's length (200, 8, 10)
          --ping-interval MS                                            login: the unrelated PING (10)
        tool:
          --transport line|websocket  line sessions (ALPN chorus), or WebSocket sessions (ALPN
                                  http/1.1, GET /ws, one frame per line; JSON mode only, so not
                                  with --mode text or handshake)
          --healthz MS            fanout: one HTTPS connection polls GET /healthz every MS ms
                                  during the measured phase; reports its latency
          --threads N             generator event-loop threads (1)
          --scrypt-log-n N        hash cost given to a spawned server
          --server-arg ARG        one more flag for a spawned server; repeatable
          --settle S              connections: wait before reading RSS (2)
          --timeout S             longest a set-up phase may take (600)
          --stall S               fanout: give up after S seconds without a delivery (10)
          --keep-data             keep a spawned server's temporary folder
          --probe CMD             run `sh -c CMD` just before and just after the measured phase
                                  (CHORUS_BENCH_PHASE=before|after); its output goes in the report
        Prints one JSON line on standard output and a summary on standard error; exits 1 when a
        message was lost or a request failed, 2 on a usage error or a node of --servers that
        cannot be reached.
        """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var words = arguments[...]
        guard let name = words.popFirst() else { throw BenchFailure(usage) }
        guard let workload = Workload(rawValue: name) else {
            throw BenchFailure("unknown workload \(name); one of: \(Workload.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        options.workload = workload
        while let word = words.popFirst() {
            guard word.hasPrefix("--") else { throw BenchFailure("unexpected argument \(word) (see --help)") }
            if word == "--insecure" { options.insecure = true; continue }
            if word == "--keep-data" { options.keepData = true; continue }
            var flag = word
            var value: String
            if let equals = word.firstIndex(of: "=") {
                flag = String(word[..<equals])
                value = String(word[word.index(after: equals)...])
            } else {
                guard let next = words.popFirst() else { throw BenchFailure("\(word) needs a value") }
                value = next
            }
            try options.set(flag, value)
        }
        if options.spawn == nil && options.caFile == nil && !options.insecure {
            throw BenchFailure("give --ca FILE (or --insecure) to check a running server's certificate, or --spawn PATH")
        }
        if !options.servers.isEmpty {
            if options.spawn != nil { throw BenchFailure("--servers measures running nodes; it cannot be combined with --spawn") }
            if options.addressGiven { throw BenchFailure("give either --servers or --host/--port, not both") }
        }
        if !options.zones.isEmpty && options.mode != "text" { throw BenchFailure("--tz needs --mode text") }
        if options.transport == .websocket && (options.mode == "text" || options.workload == .handshake) {
            throw BenchFailure("--transport websocket sessions are in JSON mode: not with --mode text or handshake")
        }
        if options.senders > options.members {
            throw BenchFailure("--senders (\(options.senders)) cannot exceed --members (\(options.members))")
        }
        return options
    }

    private mutating func set(_ flag: String, _ value: String) throws {
        switch flag {
        case "--host": host = value; addressGiven = true
        case "--port": port = try Self.number(flag, value, 1...65535); addressGiven = true
        case "--servers": servers = try ServerList.parse(value)
        case "--spawn": spawn = value
        case "--server-pid":
            // A node listed twice in --servers is one process: count its CPU once.
            serverPIDs = []
            for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                let pid = Int32(try Self.number(flag, String(item), 1...Int(Int32.max)))
                if !serverPIDs.contains(pid) { serverPIDs.append(pid) }
            }
        case "--ca": caFile = value
        case "--threads": threads = try Self.number(flag, value, 1...16)
        case "--members": members = try Self.number(flag, value, 2...1_000_000)
        case "--senders": senders = try Self.number(flag, value, 1...1_000_000)
        case "--messages": messages = try Self.number(flag, value, 1...100_000_000)
        case "--window": window = try Self.number(flag, value, 1...100_000)
        case "--payload": payload = try Self.number(flag, value, 1...4000)
        case "--mode":
            guard value == "json" || value == "text" else { throw BenchFailure("--mode is json or text, not \(value)") }
            mode = value
        case "--tz":
            zones = value.split(separator: ",").map(String.init)
            guard !zones.isEmpty, zones.allSatisfy({ !$0.contains(" ") }) else { throw BenchFailure("--tz is ZONE[,ZONE...], not \(value)") }
        case "--transport":
            guard let transport = BenchTransport(rawValue: value) else {
                throw BenchFailure("--transport is line or websocket, not \(value)")
            }
            self.transport = transport
        case "--healthz": healthzInterval = try Self.decimal(flag, value, 1...60_000) / 1000
        case "--sessions": sessions = try Self.number(flag, value, 1...1_000_000)
        case "--accounts": accounts = try Self.number(flag, value, 1...1_000_000)
        case "--parallel": parallel = try Self.number(flag, value, 1...100_000)
        case "--loops": loops = try Self.number(flag, value, 1...10_000)
        case "--seconds": seconds = try Self.decimal(flag, value, 0.1...86_400)
        case "--clients": clients = try Self.number(flag, value, 1...100_000)
        case "--tasks": tasks = try Self.number(flag, value, 1...1_000_000)
        case "--parents": parents = try Self.number(flag, value, 0...1_000_000)
        case "--subtasks": subtasks = try Self.number(flag, value, 0...1000)
        case "--ping-interval": pingInterval = try Self.decimal(flag, value, 0.1...60_000)
        case "--settle": settle = try Self.decimal(flag, value, 0...600)
        case "--timeout": timeout = try Self.decimal(flag, value, 1...86_400)
        case "--stall": stall = try Self.decimal(flag, value, 0.5...3600)
        case "--scrypt-log-n": scryptLogN = try Self.number(flag, value, 4...20)
        case "--server-arg": serverArguments.append(value)
        case "--probe": probe = MeasureProbe(command: value)
        default: throw BenchFailure("unknown flag \(flag) (see --help)")
        }
    }

    private static func number(_ flag: String, _ value: String, _ range: ClosedRange<Int>) throws -> Int {
        try bounded(flag, value, range, kind: "a whole number")
    }

    private static func decimal(_ flag: String, _ value: String, _ range: ClosedRange<Double>) throws -> Double {
        try bounded(flag, value, range, kind: "a number")
    }

    private static func bounded<Value: LosslessStringConvertible & Comparable>(
        _ flag: String, _ value: String, _ range: ClosedRange<Value>, kind: String
    ) throws -> Value {
        guard let number = Value(value), range.contains(number) else {
            throw BenchFailure("\(flag) must be \(kind) in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
        return number
    }
}

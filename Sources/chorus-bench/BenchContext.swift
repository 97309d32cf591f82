import ChorusNet
import Foundation

/// What every workload needs: the options, the server, how to reach and trust it, and
/// fresh account names so runs against one server never collide.
struct BenchContext {
    let options: BenchOptions
    let server: ServerUnderTest
    /// One per node; a single one without `--servers`.
    let addresses: [ResolvedAddress]
    let tls: TLSClientContext
    /// How the server's certificate is checked, for contexts of other connections.
    let trust: TLSClientContext.Trust
    /// A few random letters in every account name of this run.
    let runID: String

    var nodeCount: Int { addresses.count }

    /// Every account of a run shares it; 15+ bytes, as the server requires.
    var password: String { "bench-password-\(runID)" }

    init(options: BenchOptions, server: ServerUnderTest, nodes: [ServerAddress]) throws {
        self.options = options
        self.server = server
        addresses = try nodes.map { try ResolvedAddress(host: $0.host, port: $0.port) }
        if options.insecure {
            trust = .anyCertificate
        } else if let ca = options.caFile ?? server.certificatePath {
            trust = .certificateFile(ca)
        } else {
            throw BenchFailure("no certificate to check the server against: give --ca FILE or --insecure")
        }
        tls = try TLSClientContext(trust: trust, applicationProtocols: options.transport.applicationProtocols)
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        runID = String((0..<6).map { _ in letters.randomElement()! })
    }

    /// `b<run><kind><index>`: unique per run, valid as a Chorus name (2-32 of a-z 0-9).
    func userName(_ kind: String, _ index: Int) -> String {
        namePrefix(kind) + String(index)
    }

    /// The part of `userName` before the index.
    func namePrefix(_ kind: String) -> String {
        "b\(runID)\(kind)"
    }

    /// Runs `workload` on a generator with one of its shards per `--threads` loop,
    /// stopped after it.
    func run<Kind: Workload>(_ workload: Kind.Type) throws -> BenchReport {
        let generator = try Generator(threads: options.threads, addresses: addresses, tls: tls, transport: options.transport) { index, nodes in
            Kind.Shard(index: index, nodes: nodes)
        }
        defer { generator.stop() }
        return try Kind.run(self, on: generator)
    }

    /// Runs the measured phase `body`, and what it cost the server and the generator;
    /// `--probe` runs on either side of it.
    func measured<Value>(_ body: () throws -> Value) throws -> (Value, CPUCost) {
        let probeBefore = options.probe?.run(phase: "before")
        let before = ProcessUsage.snapshot(serverPIDs: server.pids)
        let value = try body()
        var cost = CPUCost(from: before, to: ProcessUsage.snapshot(serverPIDs: server.pids))
        if let probe = options.probe, let probeBefore {
            cost.probe = ProbeReadings(before: probeBefore, after: probe.run(phase: "after"))
        }
        return (value, cost)
    }

    /// The shard-local share of `total` items for shard `shard` of `shards`: every
    /// index `i` with `i % shards == shard`.
    static func share(of total: Int, shard: Int, shards: Int, from start: Int = 0) -> [Int] {
        (start..<max(start, total)).filter { $0 % shards == shard }
    }
}

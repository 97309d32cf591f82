import ChorusNet
import Foundation
import Glibc

// chorus-bench: the measuring instrument of issue 7. Flags, the server and the choice of
// workload live here; each workload is its own file.

/// Ctrl-C must not leave a spawned chorusd running.
func stopSpawnedServerAndExit(_ signal: Int32) {
    let pid = ServerUnderTest.spawnedPID.load(ordering: .relaxed)
    if pid > 0 { kill(pid, SIGTERM) }
    _exit(128 + signal)
}

func fail(_ message: String, server: ServerUnderTest? = nil) -> Never {
    FileHandle.standardError.write(Data("chorus-bench: \(message)\n".utf8))
    if let server {
        let log = server.errorLog.split(separator: "\n").suffix(5).joined(separator: "\n")
        if !log.isEmpty { FileHandle.standardError.write(Data("chorusd said:\n\(log)\n".utf8)) }
        server.stop()
    }
    exit(1)
}

/// A command line that cannot run (a bad flag, a node that is not there): status 2.
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("chorus-bench: \(message)\n".utf8))
    exit(2)
}

Sockets.ignoreSIGPIPE()
Sockets.raiseOpenFileLimit()
signal(SIGINT) { stopSpawnedServerAndExit($0) }
signal(SIGTERM) { stopSpawnedServerAndExit($0) }

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.isEmpty || arguments.contains("--help") || arguments.contains("-h") {
    print(BenchOptions.usage)
    exit(arguments.isEmpty ? 2 : 0)
}

let options: BenchOptions
do {
    options = try BenchOptions.parse(arguments)
    try NodeProbe.reachAll(options.servers)
} catch {
    usageError("\(error)")
}

let server: ServerUnderTest
if let executable = options.spawn {
    // No limits that would measure the limiter instead of the server; cheap hashes so
    // thousands of accounts register quickly, except where hashing is the point.
    var flags = ["--rate", "1000000", "--burst", "1000000", "--max-per-ip", "0", "--sendq", "67108864",
                 "--max-connections", "1000000", "--idle-timeout", "3600"]
    if let logN = options.scryptLogN ?? (options.workload == .login ? nil : 10) {
        flags += ["--scrypt-log-n", String(logN)]
    }
    flags += options.serverArguments
    do {
        server = try ServerUnderTest.spawn(executable: executable, host: options.host, flags: flags, keepFolder: options.keepData)
    } catch {
        fail("\(error)")
    }
} else if let first = options.servers.first {
    server = ServerUnderTest.attach(host: first.host, port: first.port, pids: options.serverPIDs)
} else {
    server = ServerUnderTest.attach(host: options.host, port: options.port, pids: options.serverPIDs)
}
let nodes = options.servers.isEmpty ? [ServerAddress(host: server.host, port: server.port)] : options.servers

let report: BenchReport
do {
    let context = try BenchContext(options: options, server: server, nodes: nodes)
    switch options.workload {
    case .fanout: report = try context.run(FanoutWorkload.self)
    case .connections: report = try context.run(ConnectionsWorkload.self)
    case .handshake: report = try context.run(HandshakeWorkload.self)
    case .writes: report = try context.run(WritesWorkload.self)
    case .login: report = try context.run(LoginWorkload.self)
    case .tasks: report = try context.run(TasksWorkload.self)
    case .feed: report = try context.run(FeedWorkload.self)
    }
} catch {
    fail("\(error)", server: server)
}
report.emit(server: server, nodes: nodes, threads: options.threads, transport: options.transport)
server.stop()
exit(report.ok ? 0 : 1)

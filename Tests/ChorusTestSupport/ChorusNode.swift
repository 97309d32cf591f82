import Foundation
import Glibc

/// One `chorusd --postgres` node of a test cluster: a subprocess in a temporary folder of
/// its own (its working directory, where it makes its certificate), on port 0 unless told
/// otherwise, with its standard error captured as it comes. Faults are signals: `kill()`
/// (SIGKILL), `pause()`/`resume()` (SIGSTOP/SIGCONT), `terminate()` (SIGTERM).
///
/// `start` waits for the `listening on` line; `launch` does not, so several nodes can be
/// started at the same moment and waited for after (`waitUntilListening`).
public final class ChorusNode {
    public let name: String
    public let folder: TemporaryDirectory
    public let arguments: [String]
    public let environment: [String: String]
    public private(set) var daemon: ChorusDaemon
    public private(set) var stderr = OutputCapture()

    /// The flags every node gets besides the store and its name: cheap password hashes
    /// and no rate limit, as the in-process test servers have.
    public static let testFlags = ["--scrypt-log-n", "10", "--rate", "100000", "--burst", "100000"]

    /// Starts `chorusd --postgres conninfo --node name --port port` plus `flags` (later
    /// flags win). With `conninfo` nil, the store comes from `environment` alone
    /// (`CHORUS_POSTGRES`). `certificateOf` copies another node's certificate first, so
    /// one client trust serves both, as behind a load balancer.
    public static func launch(postgres conninfo: String?, name: String, port: Int = 0, flags: [String] = [],
                              environment: [String: String] = [:], certificateOf other: ChorusNode? = nil) throws -> ChorusNode {
        var arguments = ["--port", String(port), "--node", name] + testFlags + flags
        if let conninfo { arguments = ["--postgres", conninfo] + arguments }
        return try ChorusNode(name: name, arguments: arguments, environment: environment, certificateOf: other)
    }

    /// `launch`, then waits until it listens; throws with its standard error if it did not.
    public static func start(postgres conninfo: String?, name: String, port: Int = 0, flags: [String] = [],
                             environment: [String: String] = [:], certificateOf other: ChorusNode? = nil) throws -> ChorusNode {
        let node = try launch(postgres: conninfo, name: name, port: port, flags: flags, environment: environment,
                              certificateOf: other)
        try node.waitUntilListening()
        return node
    }

    private init(name: String, arguments: [String], environment: [String: String], certificateOf other: ChorusNode?) throws {
        self.name = name
        self.arguments = arguments
        self.environment = environment
        folder = try TemporaryDirectory()
        if let other {
            try FileManager.default.copyItem(atPath: other.folder.path + "/certs", toPath: folder.path + "/certs")
        }
        daemon = try ChorusDaemon(arguments, in: folder.path, environment: environment)
        stderr.drain(daemon.errors)
    }

    public var port: Int { daemon.port }
    public var pid: pid_t { daemon.pid }
    public var certificatePath: String { folder.path + "/certs/server.crt" }
    public var isRunning: Bool { daemon.process.isRunning }

    /// Waits for the `listening on` line; throws with what the node said if it ended first.
    public func waitUntilListening(timeout: Double = 60) throws {
        guard try daemon.waitUntilListening(timeout: timeout) else {
            _ = stderr.waitForEnd(timeout: 2)
            throw NodeFailed(description: "node \(name) did not start listening: \(stderr.text)")
        }
    }

    public func kill() { daemon.send(SIGKILL) }
    /// SIGSTOP, returning once every thread of the process is stopped: the signal is only
    /// queued when kill returns, and a thread on another core may still answer a line.
    public func pause() {
        daemon.send(SIGSTOP)
        let pid = daemon.process.processIdentifier
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !Self.isStopped(pid) { usleep(1_000) }
    }

    /// Whether every thread in /proc/PID/task is in state `T` (stopped by a signal).
    static func isStopped(_ pid: Int32) -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !threads.isEmpty else {
            return false
        }
        return threads.allSatisfy { thread in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").first == "T"
        }
    }
    public func resume() { daemon.send(SIGCONT) }
    public func terminate() { daemon.send(SIGTERM) }

    /// Waits for the process to end; its exit status (128 + N for signal N), or nil if it
    /// was still running after `timeout`.
    @discardableResult
    public func waitForExit(timeout: Double = 30) -> Int32? {
        guard daemon.waitForExit(timeout: timeout) else { return nil }
        let process = daemon.process
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// SIGTERM and the exit status.
    @discardableResult
    public func stop() -> Int32? {
        resume()
        terminate()
        return waitForExit()
    }

    /// Starts the same node again in the same folder (same certificate), once the old
    /// process has ended; on the same port when `samePort` (which must then be free).
    public func restart(samePort: Bool = false) throws {
        if isRunning {
            kill()
            _ = waitForExit()
        }
        var arguments = self.arguments
        if samePort, let index = arguments.firstIndex(of: "--port") { arguments[index + 1] = String(port) }
        daemon = try ChorusDaemon(arguments, in: folder.path, environment: environment)
        stderr = OutputCapture()
        stderr.drain(daemon.errors)
        try waitUntilListening()
    }

    public struct NodeFailed: Error, CustomStringConvertible {
        public let description: String
    }

    deinit {
        if isRunning {
            daemon.send(SIGCONT)
            daemon.send(SIGKILL)
        }
    }
}

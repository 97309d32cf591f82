import Foundation
import Glibc
import Testing

/// A `chorusd` process with its standard output and error on pipes, as a user runs it.
///
/// Its environment is the test process's without `CHORUS_POSTGRES` and libpq's `PG*`
/// variables (a developer's shell must not send the SQLite tests to a real database),
/// plus `environment`.
public final class ChorusDaemon {
    public let process = Process()
    public let output = Pipe()
    public let errors = Pipe()
    public private(set) var port = 0
    public private(set) var stdoutLines: [String] = []
    private let exited = DispatchSemaphore(value: 0)

    /// The built chorusd sits next to the test bundle.
    public static var chorusd: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chorusd").path
    }

    public init(_ arguments: [String], in directory: String, executable: String = ChorusDaemon.chorusd,
                environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment.filter { $0.key != "CHORUS_POSTGRES" && !$0.key.hasPrefix("PG") }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        process.terminationHandler = { [exited] _ in exited.signal() }
        try process.run()
    }

    public var pid: pid_t { process.processIdentifier }

    /// Reads standard output until the `listening on` line and takes the port from it;
    /// false if the process ended (or `timeout` passed) first.
    public func waitUntilListening(timeout: Double = 120) throws -> Bool {
        var buffer = ""
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            // nil: nothing more in time; empty: the process closed its output.
            guard let chunk = output.fileHandleForReading.availableData(within: deadline.timeIntervalSinceNow),
                  !chunk.isEmpty else { return false }
            buffer += String(decoding: chunk, as: UTF8.self)
            stdoutLines = buffer.split(separator: "\n").map(String.init)
            if let line = stdoutLines.first(where: { $0.contains("listening on ") }),
               let portText = line.split(separator: ":").last, let port = Int(portText) {
                self.port = port
                return true
            }
        }
    }

    /// Sends `signal` (SIGKILL, SIGSTOP, SIGCONT, SIGTERM...) to the process.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits up to `timeout` seconds for the process to end; whether it did.
    public func waitForExit(timeout: Double) -> Bool {
        guard exited.wait(timeout: .now() + timeout) == .success else { return false }
        exited.signal() // for any later waiter
        return true
    }

    /// Waits up to `timeout` seconds for the end; its exit status and all of standard
    /// error (which must not have been handed to an `OutputCapture`). A process still
    /// running then is killed and the test fails, naming the command; so does a standard
    /// error that does not end soon after.
    public func finish(timeout: Double = 120, sourceLocation: SourceLocation = #_sourceLocation) -> (status: Int32, stderr: String) {
        if !waitForExit(timeout: timeout) {
            Issue.record("\(process.commandLine) did not end within \(Int(timeout)) s and was killed",
                         sourceLocation: sourceLocation)
            process.killAndWait()
        }
        let text = readToEnd(errors, what: "standard error", sourceLocation: sourceLocation)
        return (process.isRunning ? -1 : process.terminationStatus, text)
    }

    /// The rest of standard output, once the process has ended (`finish`).
    public func remainingOutput(sourceLocation: SourceLocation = #_sourceLocation) -> String {
        readToEnd(output, what: "standard output", sourceLocation: sourceLocation)
    }

    /// Reads `pipe` to its end, for at most ten seconds: it ends when the process has, unless
    /// something it started still holds it.
    private func readToEnd(_ pipe: Pipe, what: String, sourceLocation: SourceLocation) -> String {
        let (data, ended) = pipe.fileHandleForReading.readToEnd(within: 10)
        let text = String(decoding: data, as: UTF8.self)
        if !ended {
            Issue.record("\(what) of \(process.commandLine) did not end within 10 s of the process; read: \(text)",
                         sourceLocation: sourceLocation)
        }
        return text
    }

    deinit {
        if process.isRunning {
            // A stopped process would not act on SIGTERM.
            kill(process.processIdentifier, SIGCONT)
            process.terminate()
        }
    }
}

import ChorusClient
import ChorusCrypto
import ChorusLocking
import Foundation
import Glibc
import Testing
import ChorusTestSupport

/// The `chorus` executable run as a user runs it, with its own HOME and XDG_CONFIG_HOME in
/// a temporary folder (the real known_hosts is never touched), output captured as it comes.
final class ChorusRun {
    /// The built chorus sits next to the test bundle, like chorusd.
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chorus").path
    }

    /// Output read on a background thread as it comes (ChorusTestSupport).
    typealias Capture = OutputCapture

    let process = Process()
    let stdout = Capture()
    let stderr = Capture()
    /// Nil when standard output is a terminal.
    private let outputPipe: Pipe?
    private let errorPipe = Pipe()
    /// Present when the test keeps standard input open to write lines.
    let input: Pipe?

    /// Starts chorus. Standard input is /dev/null, a kept-open pipe (`pipeInput`), or a
    /// pseudo-terminal; with `terminalOutput` standard output goes to that terminal too.
    init(_ arguments: [String], home: String, environment extra: [String: String] = [:],
         pipeInput: Bool = false, standardInput: FileHandle? = nil, terminalOutput: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["CHORUS_PASSWORD", "CHORUS_TOKEN", "NO_COLOR"] { environment[name] = nil }
        environment["HOME"] = home
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        input = pipeInput ? Pipe() : nil
        if let input {
            process.standardInput = input
        } else if let standardInput {
            process.standardInput = standardInput
        } else {
            process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        }
        outputPipe = terminalOutput ? nil : Pipe()
        process.standardOutput = outputPipe ?? standardInput
        process.standardError = errorPipe
        try process.run()
        if let outputPipe { stdout.drain(outputPipe) }
        stderr.drain(errorPipe)
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Sends one line on standard input.
    func type(_ line: String) {
        input?.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    func closeInput() {
        try? input?.fileHandleForWriting.close()
    }

    /// Waits until standard output (or error) satisfies `check`; the timeout is only a safety net.
    @discardableResult
    func wait(timeout: Double = 20, onErrors: Bool = false, until check: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if check(onErrors ? stderr.text : stdout.text) { return true }
            if !process.isRunning, !check(onErrors ? stderr.text : stdout.text) {
                usleep(50_000) // let the last output land
                return check(onErrors ? stderr.text : stdout.text)
            }
            usleep(20_000)
        }
        return false
    }

    func waitForOutput(_ text: String, onErrors: Bool = false) -> Bool {
        wait(onErrors: onErrors) { $0.contains(text) }
    }

    /// Waits for the end (SIGTERM after the safety timeout) and returns status and output.
    /// One that outlives its SIGTERM by 10 s (a child may inherit SIGTERM blocked) is
    /// killed, and the test fails.
    func finish(timeout: Double = 30, sourceLocation: SourceLocation = #_sourceLocation)
        -> (status: Int32, stdout: String, stderr: String) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        if !process.waitUntilExit(within: 10) {
            Issue.record("\(process.commandLine) was still running 10 s after SIGTERM and was killed",
                         sourceLocation: sourceLocation)
        }
        // The reader threads stop at the pipes' end, once the last bytes are in.
        if outputPipe != nil { _ = stdout.waitForEnd(timeout: 10) }
        _ = stderr.waitForEnd(timeout: 10)
        return (process.isRunning ? -1 : process.terminationStatus, stdout.text, stderr.text)
    }

    /// Runs chorus to the end.
    static func run(_ arguments: [String], home: String, environment: [String: String] = [:])
        throws -> (status: Int32, stdout: String, stderr: String) {
        try ChorusRun(arguments, home: home, environment: environment).finish()
    }
}

/// A TCP listener that takes connections and never says a word, as a network that drops
/// packets looks to a client: a TLS handshake against it waits for its timeout.
final class SilentListener {
    private var listener: Int32
    private var accepted: Int32 = -1

    init(port: Int) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = withLoopbackAddress(port: port) { [listener] in bind(listener, $0, $1) }
        guard bound == 0, listen(listener, 8) == 0 else {
            Glibc.close(listener)
            throw LineClient.Failure("cannot listen on port \(port)")
        }
    }

    deinit { close() }

    /// Takes a connection and waits for its first bytes (a client's TLS hello); false if
    /// none came in time.
    func waitForClientHello(timeout: Double) -> Bool {
        let milliseconds = Int32(timeout * 1000)
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, milliseconds) == 1 else { return false }
        accepted = accept(listener, nil, nil)
        guard accepted >= 0 else { return false }
        var reading = pollfd(fd: accepted, events: Int16(POLLIN), revents: 0)
        return poll(&reading, 1, milliseconds) == 1
    }

    /// Closes the taken connection (the handshake fails) and stops listening.
    func close() {
        if accepted >= 0 { Glibc.close(accepted) }
        if listener >= 0 { Glibc.close(listener) }
        accepted = -1
        listener = -1
    }
}

/// A pseudo-terminal whose follower end is a child's standard input, so chorus believes
/// a person sits at a terminal (for the trust-on-first-use question).
final class PseudoTerminal {
    let leader: Int32
    let follower: FileHandle

    init() throws {
        // posix_openpt and friends are hidden from Swift's Glibc; these are the ioctls behind them
        // (_IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned), the same on x86-64 and arm64).
        let setLock: UInt = 0x4004_5431
        let getNumber: UInt = 0x8004_5430
        leader = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard leader >= 0, ioctl(leader, setLock, &unlock) == 0, ioctl(leader, getNumber, &number) == 0 else {
            throw LineClient.Failure("no pseudo-terminal")
        }
        let descriptor = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else { throw LineClient.Failure("cannot open /dev/pts/\(number)") }
        follower = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit {
        close(leader)
    }

    /// What the program wrote to the terminal so far, and its bytes as written.
    private(set) var output = ""
    private(set) var bytes: [UInt8] = []

    /// Types text as a person would.
    func type(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(leader, $0.baseAddress, $0.count) }
    }

    /// Reads the terminal until `check` holds; the timeout is only a safety net.
    func wait(timeout: Double = 20, until check: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !check(output), Date() < deadline {
            var poll = pollfd(fd: leader, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 100) == 1 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(leader, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
            output = String(decoding: bytes, as: UTF8.self)
        }
        return check(output)
    }
}

extension ClientProcessTests {
    /// A server with alice (owner of "Flat 2B") and bob (member), and files holding their password.
    final class Household {
        let server: TestServer
        let home: TemporaryDirectory
        let passwordFile: String
        let alice: TestClient
        let room: Int

        init(server: TestServer? = nil) throws {
            self.server = try server ?? TestServer()
            home = try TemporaryDirectory()
            passwordFile = home.path + "/password"
            try (ClientProcessTests.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            // As README says to keep it: chorus warns about a file others can read.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile)
            alice = try self.server.user("alice")
            _ = try self.server.user("bob")
            let created = try alice.last("ROOM CREATE Flat 2B")
            room = Int(created.split(separator: "#")[1].prefix { $0.isNumber }) ?? 0
            try alice.add("bob", to: String(room))
        }

        /// Flags that reach this server with its certificate as the CA.
        var connection: [String] { ["--port", String(server.port), "--ca", server.certificatePath] }

        func login(_ user: String) -> [String] { connection + ["--user", user, "--password-file", passwordFile] }

        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
            try ChorusRun.run(arguments, home: home.path, environment: environment)
        }
    }
}

import Foundation
import Glibc
import Synchronization

/// The chorusd being measured: one this tool started (`--spawn`) on a fresh temporary
/// data folder and certificate, or one already running (`--host`/`--port`).
final class ServerUnderTest {
    let host: String
    let port: Int
    /// Known when spawned or given with `--server-pid` (one per node with `--servers`): CPU
    /// and RSS are read from /proc.
    let pids: [Int32]
    var pid: Int32? { pids.first }
    /// The certificate a spawned server made for itself, to verify it against.
    let certificatePath: String?
    /// The flags a spawned server got, for the report.
    let arguments: [String]
    private let process: Process?
    private let folder: URL?
    private let keepFolder: Bool

    /// The pid of a spawned server, for the SIGINT handler (which cannot capture).
    static let spawnedPID = Atomic<Int32>(0)

    static func attach(host: String, port: Int, pids: [Int32]) -> ServerUnderTest {
        ServerUnderTest(host: host, port: port, pids: pids, certificatePath: nil, arguments: [],
                        process: nil, folder: nil, keepFolder: true)
    }

    private init(host: String, port: Int, pids: [Int32], certificatePath: String?, arguments: [String],
                 process: Process?, folder: URL?, keepFolder: Bool) {
        self.host = host
        self.port = port
        self.pids = pids
        self.certificatePath = certificatePath
        self.arguments = arguments
        self.process = process
        self.folder = folder
        self.keepFolder = keepFolder
    }

    /// Starts `executable` with `--port 0` in a new temporary folder (its cwd, so it makes
    /// `certs/server.crt` there), waits for its `listening on HOST:PORT` line and returns.
    static func spawn(executable: String, host: String, flags: [String], keepFolder: Bool) throws -> ServerUnderTest {
        let path = URL(fileURLWithPath: executable).standardizedFileURL.path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchFailure("--spawn \(executable): not an executable file")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("chorus-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let outputPath = folder.appendingPathComponent("chorusd.out").path
        let errorPath = folder.appendingPathComponent("chorusd.err").path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)

        let arguments = ["--host", host, "--port", "0", "--data", "data"] + flags
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        // Files, not pipes: a chatty server can never block on a full pipe nobody reads.
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchFailure("cannot start \(path): \(error)")
        }
        spawnedPID.store(process.processIdentifier, ordering: .relaxed)

        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let port = listeningPort(in: output) {
                return ServerUnderTest(host: host, port: port, pids: [process.processIdentifier],
                                       certificatePath: folder.appendingPathComponent("certs/server.crt").path,
                                       arguments: arguments, process: process, folder: folder, keepFolder: keepFolder)
            }
            if !process.isRunning {
                let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
                throw BenchFailure("chorusd exited with status \(process.terminationStatus) before listening: \(errors.trimmingCharacters(in: .whitespacesAndNewlines))")
            }
            usleep(20_000)
        }
        process.terminate()
        throw BenchFailure("chorusd did not print 'listening on' within 30 s (see \(outputPath))")
    }

    /// The port from chorusd's `... listening on HOST:PORT` line.
    private static func listeningPort(in output: String) -> Int? {
        for line in output.split(separator: "\n") {
            guard let range = line.range(of: "listening on ") else { continue }
            let address = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            if let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) {
                return port
            }
        }
        return nil
    }

    /// The server's standard error so far (spawned servers only): shown when a run fails.
    var errorLog: String {
        guard let folder else { return "" }
        return (try? String(contentsOfFile: folder.appendingPathComponent("chorusd.err").path, encoding: .utf8)) ?? ""
    }

    /// Sends SIGTERM to a spawned server and waits for it (SIGKILL after 15 s), then removes
    /// its folder. Nothing for a server this tool did not start.
    func stop() {
        guard let process else { return }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(15)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        Self.spawnedPID.store(0, ordering: .relaxed)
        if let folder, !keepFolder { try? FileManager.default.removeItem(at: folder) }
    }

    var dataFolder: String? { folder?.path }
}

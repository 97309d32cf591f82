import ChorusTestSupport
import Foundation
import Glibc
import Testing

/// The built executables sit next to the test bundle.
enum BuiltProduct {
    static func path(_ name: String) -> String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
    }
}

/// A temporary folder that removes itself.
final class ScratchFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "chorus-bench-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A chorusd started as a benchmark wants it (no rate limits, cheap hashes) in a scratch
/// folder, so it makes certs/server.crt there; stopped when released.
final class BenchServer {
    let folder: ScratchFolder
    let process = Process()
    private(set) var port = 0

    var certificate: String { folder.path + "/certs/server.crt" }
    var address: String { "127.0.0.1:\(port)" }

    init() throws {
        folder = try ScratchFolder()
        let output = folder.path + "/chorusd.out"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: folder.path + "/chorusd.err", contents: nil)
        process.executableURL = URL(fileURLWithPath: BuiltProduct.path("chorusd"))
        process.arguments = ["--port", "0", "--data", "data", "--scrypt-log-n", "10", "--rate", "1000000",
                             "--burst", "1000000", "--max-per-ip", "0", "--idle-timeout", "3600"]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        // A file, not a pipe: nobody reads chorusd's output after the listening line.
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: folder.path + "/chorusd.err")
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && process.isRunning {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on ") }),
               let portText = line.split(separator: ":").last, let port = Int(portText) {
                self.port = port
                return
            }
            usleep(20_000)
        }
        process.terminate()
        throw BenchRunFailure(description: "chorusd did not start listening")
    }

    /// The account numbers of `kind` (`w` for writers, `c` for connections' accounts) this
    /// server logged as registered, from its `msg=registered user=bRUNIDKINDN ...` lines; waits
    /// up to 5 s for `expected` of them (the log is written by a thread of its own).
    func registered(kind: Character, expected: Int) -> Set<Int> {
        var numbers: Set<Int> = []
        for _ in 0..<250 {
            let log = (try? String(contentsOfFile: folder.path + "/chorusd.err", encoding: .utf8)) ?? ""
            numbers = Set(log.matches(of: /msg=registered user=b[a-z0-9]{6}([a-z])(\d+) addr=/).compactMap { match in
                match.output.1.first == kind ? Int(match.output.2) : nil
            })
            if numbers.count >= expected { break }
            usleep(20_000)
        }
        return numbers
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.expectExit(within: 60)
        }
    }
}

struct BenchRunFailure: Error, CustomStringConvertible {
    let description: String
}

/// One run of the chorus-bench executable: its exit status, its JSON line parsed, and its
/// standard error (the summary, or the one-line usage error).
struct BenchRun {
    let status: Int32
    let stdout: String
    let stderr: String

    var json: [String: Any] {
        guard let line = stdout.split(separator: "\n").first,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return [:] }
        return object
    }

    static func run(_ arguments: [String]) throws -> BenchRun {
        let scratch = try ScratchFolder()
        let outPath = scratch.path + "/out"
        let errPath = scratch.path + "/err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProduct.path("chorus-bench"))
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A run takes seconds; the bound leaves room for a loaded machine.
        try process.requireExit(within: 300)
        return BenchRun(status: process.terminationStatus,
                        stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                        stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

import Foundation
import Glibc

/// Runs a short-lived program (openssl, curl, Python's email parser) to its end and returns
/// its exit status and what it wrote. Its output goes to a file, not a pipe: a pipe's
/// write end can leak into another test's long-lived child started at the same moment,
/// and reading the pipe to its end would then wait for that child. The wait is bounded.
public enum ToolRun {
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    public static func run(_ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
        let folder = try TemporaryDirectory()
        let outputPath = folder.path + "/output"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TimedOut(description: "\(arguments.joined(separator: " ")) did not end within \(Int(timeout)) s")
        }
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, text)
    }
}

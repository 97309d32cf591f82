import Foundation
import Glibc

/// Runs a short-lived program (openssl, curl, Python's email parser) to its end and returns
/// its exit status and what it wrote. Its output goes to a file, not a pipe: a pipe's
/// write end can leak into another test's long-lived child started at the same moment,
/// and reading the pipe to its end would then wait for that child. The wait is bounded.
public enum ToolRun {
    public typealias TimedOut = WaitTimedOut

    /// `folder`: the working directory (the test process's when nil). `input`: standard
    /// input's text (from a file), or /dev/null when nil. `errors`: standard error goes
    /// to the output too, or is left to the test process's when false.
    public static func run(_ arguments: [String], in folder: String? = nil, input: String? = nil, errors: Bool = true,
                           timeout: Double = 60) throws -> (status: Int32, output: String) {
        let scratch = try TemporaryDirectory()
        let outputPath = scratch.path + "/output"
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        process.standardOutput = output
        if errors { process.standardError = output }
        if let input {
            let inputPath = scratch.path + "/input"
            try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        try process.requireExit(within: timeout)
        let text = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}

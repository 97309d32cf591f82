import Foundation

/// `--probe CMD`: a shell command run just before and just after the measured phase
/// (outside its timing), whose standard output goes into the report, so a figure only
/// the server's side knows (the database's counter row, say) is read around exactly the
/// measured interval and not the set-up.
struct MeasureProbe: Sendable {
    let command: String

    /// What the command printed (trimmed); `exit N: ...` in front when it failed.
    func run(phase: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["CHORUS_BENCH_PHASE"] = phase
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "cannot run /bin/sh: \(error)"
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return process.terminationStatus == 0 ? text : "exit \(process.terminationStatus): \(text)"
    }
}

/// What the probe printed on either side of the measured phase.
struct ProbeReadings: Sendable {
    let before: String
    let after: String
}

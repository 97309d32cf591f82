import ChorusTestSupport
import Foundation
import Testing

/// The TLS profile checked by an outside scanner: sslyze, from PyPI, in a virtual
/// environment the test makes under .build/ the first time.
/// A time limit turns a stuck scanner or installer into a failure instead of a stalled run.
@Suite(.timeLimit(.minutes(10))) struct TLSProfileTests {
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let venv = package.appendingPathComponent(".build/sslyze-venv")

    /// Runs a command (found on PATH, or a full path), returning its status and combined
    /// output; the web door tests run outside clients through it too. One still running
    /// after `timeout` seconds is killed and thrown.
    @discardableResult
    static func run(_ arguments: [String], timeout: Double = 600) throws -> (status: Int32, output: String) {
        try ToolRun.run(["/usr/bin/env"] + arguments, timeout: timeout)
    }

    static func sslyze() throws -> String {
        let binary = venv.appendingPathComponent("bin/sslyze").path
        if !FileManager.default.isExecutableFile(atPath: binary) {
            let made = try run(["python3", "-m", "venv", venv.path])
            #expect(made.status == 0, "venv: \(made.output)")
            let installed = try run([venv.appendingPathComponent("bin/pip").path, "install", "--quiet", "sslyze"])
            #expect(installed.status == 0, "pip install sslyze: \(installed.output)")
        }
        return binary
    }

    /// `sslyze --mozilla_config=intermediate` finds the server compliant (trusting the
    /// self-made certificate as the CA, as a client of this server would).
    @Test func mozillaIntermediateCompliant() throws {
        let sslyze = try Self.sslyze()
        let server = try TestServer()
        let scan = try Self.run([sslyze, "--mozilla_config=intermediate", "--certinfo_ca_file", server.certificatePath,
                                 "127.0.0.1:\(server.port)"])
        #expect(scan.output.contains("127.0.0.1:\(server.port): OK - Compliant"), "\(scan.output.suffix(1500))")
        #expect(scan.status == 0)
        // The server is still fine after being probed with every protocol and suite.
        let client = try server.client()
        #expect(try client.last("PING") == "OK PONG")
    }
}

import Foundation
import Testing

/// `--probe CMD` runs on either side of the measured phase and its output lands in the report.
@Suite(.timeLimit(.minutes(10))) struct ProbeRunTests {
    @Test func theProbeBracketsTheMeasuredPhase() throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "fanout", "--servers", "\(server.address),\(server.address)", "--ca", server.certificate,
            "--members", "4", "--senders", "2", "--messages", "10",
            "--probe", #"echo "$CHORUS_BENCH_PHASE $(date +%s%N)""#,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let probe = try #require(run.json["probe"] as? [String: String], "\(run.stdout)")
        let before = try #require(probe["before"]?.split(separator: " "))
        let after = try #require(probe["after"]?.split(separator: " "))
        #expect(before.first == "before")
        #expect(after.first == "after")
        // The measured interval lies between the two readings.
        let wall = try #require(run.json["wall_s"] as? Double)
        let between = Double(Int(after[1])! - Int(before[1])!) / 1e9
        #expect(between >= wall - 0.001)
        #expect(run.stderr.contains("probe before: before "))
    }

    @Test func aFailingProbeIsReportedNotFatal() throws {
        let server = try BenchServer()
        let run = try BenchRun.run([
            "writes", "--port", String(server.port), "--ca", server.certificate, "--clients", "2", "--seconds", "0.2",
            "--probe", "echo broken; exit 3",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["probe"] as? [String: String] == ["before": "exit 3: broken", "after": "exit 3: broken"])
    }
}

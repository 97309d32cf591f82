import Foundation
import Testing

/// `chorus-bench feed` against a real chorusd: whole feeds (200) then conditional ones
/// (304), every reader checked, on one node and on two listed nodes.
@Suite struct FeedRunTests {
    @Test(arguments: [1, 2])
    func wholeFeedsThenNotModifiedOnEveryReader(nodes: Int) throws {
        let server = try BenchServer()
        let servers = Array(repeating: server.address, count: nodes).joined(separator: ",")
        let run = try BenchRun.run(["feed", "--tasks", "30", "--clients", "3", "--seconds", "0.3",
                                    "--servers", servers, "--ca", server.certificate])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.json["ok"] as? Bool == true, "\(run.stdout)")
        let whole = run.json["whole"] as? [String: Any]
        let notModified = run.json["not_modified"] as? [String: Any]
        #expect((whole?["responses"] as? Int ?? 0) > 0)
        #expect((notModified?["responses"] as? Int ?? 0) > 0)
        #expect(whole?["failures"] as? Int == 0 && notModified?["failures"] as? Int == 0)
        // A whole feed of 30 VEVENTs is kilobytes; a 304 has no body.
        #expect((whole?["body_bytes"] as? Int ?? 0) > 30 * 200)
        #expect(notModified?["body_bytes"] as? Int == 0)
    }

    /// The workload refuses a room with no tasks rather than measure an empty feed.
    @Test func noTasksIsAUsageError() throws {
        let run = try BenchRun.run(["feed", "--tasks", "0", "--insecure"])
        #expect(run.status == 2, "\(run.stderr)")
    }
}

import ChorusFuzzSupport
import Foundation
import Testing
@testable import chorus_fuzz
@testable import chorus_fuzz_http
@testable import chorus_fuzz_websocket

/// Every committed seed and reproducer of each fuzz target goes through that target's entry,
/// with its preconditions, in a normal build: a regression the fuzzer once found, or a
/// broken invariant on a seed, stops the test run here, not only under libFuzzer.
@Suite("Fuzz corpora")
struct FuzzCorpusReplayTests {
    /// The repository's fuzz/ folder, found from this file's place in Tests/ChorusFuzzTests.
    private static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fuzz")

    /// The contents of every file in the corpus folder `name`, by file name.
    private func corpus(_ name: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = Self.fuzzFolder.appendingPathComponent(name)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.map { file in
            (file, try #require(FuzzReplay.bytes(ofFile: folder.appendingPathComponent(file).path), "\(file)"))
        }
    }

    @Test func lineCorpus() throws {
        let inputs = try corpus("corpus")
        #expect(inputs.count >= 20)
        for input in inputs { FuzzInput.run(input.bytes) }
    }

    @Test func httpCorpus() throws {
        let inputs = try corpus("corpus-http")
        #expect(inputs.count >= 20)
        for input in inputs { HTTPFuzzInput.run(input.bytes) }
    }

    @Test func webSocketCorpus() throws {
        let inputs = try corpus("corpus-websocket")
        #expect(inputs.count >= 20)
        for input in inputs { WebSocketFuzzInput.run(input.bytes) }
    }
}

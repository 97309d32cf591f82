import ChorusTestSupport
import Foundation
import Testing

/// The login throttle on three `chorusd` nodes sharing one database (CLUSTER.md test 9):
/// the failures of every node count together, before the hash, so parallel guesses get
/// exactly the contract's 5 tries from one address; a success on one node clears the
/// count every node sees.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct ClusterThrottleTests {
    static func stranger(on node: ChorusNode) throws -> TestClient {
        try TestClient(port: node.port, certificatePath: node.certificatePath)
    }

    /// Each reply's code: 200 for OK.
    static func code(_ line: String) -> Int {
        if line.hasPrefix("OK") { return 200 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// 15 wrong passwords at once, 5 on each node: 5 get 401, the other 10 get 429.
    @Test func parallelWrongPasswordsOverThreeNodesGetFiveTries() throws {
        let cluster = try TestCluster(nodes: 3)
        _ = try cluster.client("eve", on: 0, register: true).call("QUIT")
        let guessers = try (0..<15).map { try Self.stranger(on: cluster.nodes[$0 % 3]) }
        for (index, guesser) in guessers.enumerated() {
            try guesser.connection.send("LOGIN eve \"wrong guess number \(index)\"")
        }
        let codes = try guessers.map { Self.code(try $0.reply().last ?? "") }
        #expect(codes.filter { $0 == 401 }.count == 5, "\(codes)")
        #expect(codes.filter { $0 == 429 }.count == 10, "\(codes)")
        // Blocked on every node, the right password too.
        for node in cluster.nodes {
            #expect(Self.code(try Self.stranger(on: node).last("LOGIN eve \"\(TestCluster.password)\"")) == 429)
        }
    }

    /// A name no account can have, too long for a row's index entry, is still counted and
    /// answered like any unknown name.
    @Test func anOverlongNameGetsTheUsualAnswers() throws {
        let cluster = try TestCluster(nodes: 1)
        let guesser = try Self.stranger(on: cluster.nodes[0])
        // Random, so PostgreSQL cannot compress it below the index's limit (2704 bytes).
        let name = String((0..<4000).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789".randomElement()! })
        for _ in 0..<5 { #expect(Self.code(try guesser.last("LOGIN \(name) \"some password\"")) == 401) }
        #expect(Self.code(try guesser.last("LOGIN \(name) \"some password\"")) == 429)
    }

    /// 4 failures on n0, a success on n1: n2 then allows 5 more failures before the 429.
    @Test func aSuccessOnOneNodeClearsTheCountOnAnother() throws {
        let cluster = try TestCluster(nodes: 3)
        _ = try cluster.client("fay", on: 0, register: true).call("QUIT")
        let n0 = try Self.stranger(on: cluster.nodes[0])
        for attempt in 0..<4 { #expect(Self.code(try n0.last("LOGIN fay \"wrong \(attempt)\"")) == 401) }
        _ = try cluster.client("fay", on: 1)
        let n2 = try Self.stranger(on: cluster.nodes[2])
        for attempt in 0..<5 { #expect(Self.code(try n2.last("LOGIN fay \"wrong again \(attempt)\"")) == 401, "try \(attempt)") }
        #expect(Self.code(try n0.last("LOGIN fay \"one too many\"")) == 429)
    }
}

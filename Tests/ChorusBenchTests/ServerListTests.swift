import Testing
@testable import chorus_bench

/// `--servers HOST:PORT,...`: what a good list gives, and the one-line reason a bad one is refused.
@Suite struct ServerListTests {
    @Test func parsesNamesAddressesAndBracketedIPv6InOrder() throws {
        let nodes = try ServerList.parse("127.0.0.1:7667,node-b.example:7000, [::1]:7668")
        #expect(nodes == [
            ServerAddress(host: "127.0.0.1", port: 7667),
            ServerAddress(host: "node-b.example", port: 7000),
            ServerAddress(host: "::1", port: 7668),
        ])
        #expect(nodes.map(\.description) == ["127.0.0.1:7667", "node-b.example:7000", "[::1]:7668"])
    }

    /// The end-to-end test lists one server twice: two connection lists, one database.
    @Test func keepsTheSameNodeListedTwice() throws {
        #expect(try ServerList.parse("127.0.0.1:9,127.0.0.1:9").count == 2)
    }

    @Test(arguments: [
        ("", "item 1 of 1 is empty"),
        ("127.0.0.1:7667,", "item 2 of 2 is empty"),
        ("a:1,,b:2", "item 2 of 3 is empty"),
        ("127.0.0.1", "127.0.0.1 has no port"),
        ("127.0.0.1:", "127.0.0.1: has no port"),
        ("[::1]", "[::1] has no port"),
        ("[::1:7667", "has no closing ']'"),
        (":7667", ":7667 has no host"),
        ("127.0.0.1:0", "must be a whole number in 1...65535, not 0"),
        ("127.0.0.1:65536", "must be a whole number in 1...65535, not 65536"),
        ("127.0.0.1:-1", "not -1"),
        ("127.0.0.1:http", "not http"),
        ("::1:7667", "in brackets"),
    ])
    func refusesABadItemInOneLine(text: String, reason: String) {
        do {
            let nodes = try ServerList.parse(text)
            Issue.record("\(text) was accepted as \(nodes)")
        } catch {
            let message = "\(error)"
            #expect(message.hasPrefix("--servers: "))
            #expect(message.contains(reason), "\(message)")
            #expect(!message.contains("\n"))
        }
    }

    @Test func optionsTakeTheListAndRefuseItBesideSpawnOrHost() throws {
        let options = try BenchOptions.parse(["writes", "--servers", "10.0.0.1:7667,10.0.0.2:7667", "--insecure"])
        #expect(options.servers.map(\.description) == ["10.0.0.1:7667", "10.0.0.2:7667"])
        #expect(try BenchOptions.parse(["writes", "--insecure"]).servers.isEmpty)

        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--servers", "a:1", "--spawn", "/bin/true"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--servers", "a:1", "--port", "7667", "--insecure"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--host", "b", "--servers=a:1", "--insecure"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["fanout", "--servers", "a:1,", "--insecure"]) }
    }

    /// One pid per node; a node listed twice is one process, counted once.
    @Test func serverPIDsAreAListWithoutRepeats() throws {
        #expect(try BenchOptions.parse(["writes", "--insecure", "--server-pid", "41,43,41"]).serverPIDs == [41, 43])
        #expect(try BenchOptions.parse(["writes", "--insecure", "--server-pid", "41"]).serverPIDs == [41])
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["writes", "--insecure", "--server-pid", "41,"]) }
        #expect(throws: BenchFailure.self) { try BenchOptions.parse(["writes", "--insecure", "--server-pid", "0"]) }
    }
}

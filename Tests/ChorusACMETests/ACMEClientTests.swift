import ChorusAddresses
import ChorusACME
import ChorusCrypto
import ChorusOutbound
import ChorusTestSupport
import Testing

/// The client against pebble, where a server's refusal must come out as a clear error:
/// a name the CA will not issue for, and a directory that is not there.
@Suite(.enabled(if: PebbleCA.canRun, Comment(rawValue: PebbleCA.skipReason)), .timeLimit(.minutes(10)))
struct ACMEClientTests {
    struct NoAnswers: ACMEChallengeResponder {
        var challengeTypes: [String] { ["tls-alpn-01"] }
        func present(type: String, name: String, token: String, keyAuthorization: String) throws {}
        func withdraw(type: String, name: String, token: String) {}
    }

    static func settings(_ ca: PebbleCA) -> OutboundClientSettings {
        OutboundClientSettings(policy: AddressPolicy(allowing: [try! AddressBlock(parsing: "127.0.0.0/8")]), caFile: ca.caFile,
                               connectTimeoutMilliseconds: 2_000, totalTimeoutMilliseconds: 5_000)
    }

    @Test func aRefusedNameIsTheServersProblemInWords() throws {
        let ca = try PebbleCA()
        let client = try ACMEClient(directoryURL: ca.directoryURL, accountKey: try P256PrivateKey.generate(), accountURL: nil,
                                    settings: Self.settings(ca))
        let account = try client.register(email: "admin@chores.test")
        #expect(account.hasPrefix("https://127.0.0.1:"))
        // The same key registers to the same account.
        #expect(try client.register(email: nil) == account)
        let error = try #require(throws: ACMEError.self) {
            try client.obtainCertificate(names: ["127.0.0.1"], responder: NoAnswers())
        }
        #expect(error.description.hasPrefix("new order: urn:ietf:params:acme:error:"), "\(error)")
    }

    @Test func aDirectoryThatIsNotThereSaysWhere() throws {
        let ca = try PebbleCA()
        let client = try ACMEClient(directoryURL: ca.directoryURL.replacingOccurrences(of: "/dir", with: "/nothing"),
                                    accountKey: try P256PrivateKey.generate(), accountURL: nil, settings: Self.settings(ca))
        let error = try #require(throws: ACMEError.self) { try client.register(email: nil) }
        #expect(error.description == "directory: the ACME server answered HTTP 404", "\(error)")
    }
}

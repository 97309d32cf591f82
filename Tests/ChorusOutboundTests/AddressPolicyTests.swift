import ChorusAddresses
@testable import ChorusOutbound
import Testing

/// The request-forgery guard's rules, without a network: which addresses are public by
/// IANA's special-purpose registries, and what an allow entry opens.
@Suite struct AddressPolicyTests {
    static let refused = [
        // IPv4 special-purpose entries.
        "0.0.0.0", "0.1.2.3", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.254",
        "127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1", "172.31.255.255",
        "192.0.0.1", "192.0.0.170", "192.0.2.10", "192.88.99.1", "192.168.1.1", "198.18.0.1",
        "198.19.255.255", "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250",
        "240.0.0.1", "255.255.255.255",
        // IPv6 special-purpose entries and space outside global unicast.
        "::", "::1", "64:ff9b:1::1", "100::1", "2001:db8::1", "3fff::1", "5f00::1",
        "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "fec0::1", "ff02::1", "ff0e::1",
        "4000::1", "1::1", "2001:2::1",
        // IPv6 forms judged by the IPv4 address inside them.
        "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::127.0.0.1",
        "64:ff9b::10.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "2002:c0a8:101::1",
        // Teredo: server 192.0.2.1 is documentation space; client 127.0.0.1 inverted.
        "2001:0:c000:201::1", "2001:0:808:808::80ff:fffe",
    ]

    static let allowed = [
        "1.1.1.1", "8.8.8.8", "9.9.9.9", "100.63.255.255", "100.128.0.1", "172.15.255.255",
        "172.32.0.1", "192.0.1.1", "192.169.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.255",
        "2606:4700:4700::1111", "2a00:1450:4001:80b::200a", "2001:4860:4860::8888",
        "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1",
        // Teredo with public server 8.8.8.8 and client 1.1.1.1 (stored inverted).
        "2001:0:808:808::fefe:fefe",
    ]

    @Test(arguments: refused) func notPublic(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(!AddressPolicy.isPublic(address), "\(text) should be refused")
        #expect(!AddressPolicy().permits(address))
    }

    @Test(arguments: allowed) func isPublic(_ text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(AddressPolicy.isPublic(address), "\(text) should be public")
        #expect(AddressPolicy().permits(address))
    }

    @Test func anAllowEntryOpensItsBlockAndNothingElse() throws {
        let policy = AddressPolicy(allowing: [try AddressBlock(parsing: "127.0.0.0/8")])
        #expect(policy.permits(IPAddress("127.0.0.1")!))
        #expect(policy.permits(IPAddress("127.3.2.1")!))
        // A dual-stack socket reaches 127.0.0.1 through its mapped form.
        #expect(policy.permits(IPAddress("::ffff:127.0.0.1")!))
        #expect(!policy.permits(IPAddress("::1")!))
        #expect(!policy.permits(IPAddress("10.0.0.1")!))
        #expect(policy.permits(IPAddress("8.8.8.8")!))
    }

    @Test func anIPv6AllowEntry() throws {
        let policy = AddressPolicy(allowing: [try AddressBlock(parsing: "fd00::/8"), try AddressBlock(parsing: "::1")])
        #expect(policy.permits(IPAddress("fd12::5")!))
        #expect(policy.permits(IPAddress("::1")!))
        #expect(!policy.permits(IPAddress("fe80::1")!))
        #expect(!policy.permits(IPAddress("127.0.0.1")!))
    }
}

@Suite struct AddressBlockTests {
    @Test func parsesBlocksAndSingleAddresses() throws {
        let v4 = try AddressBlock(parsing: "10.0.0.0/8")
        #expect(v4.prefixLength == 8)
        #expect(v4.description == "10.0.0.0/8")
        #expect(v4.contains(IPAddress("10.200.3.4")!))
        #expect(!v4.contains(IPAddress("11.0.0.0")!))
        #expect(!v4.contains(IPAddress("::ffff:10.0.0.1")!))
        let single = try AddressBlock(parsing: "192.0.2.7")
        #expect(single.prefixLength == 32)
        #expect(single.contains(IPAddress("192.0.2.7")!))
        #expect(!single.contains(IPAddress("192.0.2.8")!))
        let v6 = try AddressBlock(parsing: "2001:db8::/32")
        #expect(v6.contains(IPAddress("2001:db8:ffff::1")!))
        #expect(!v6.contains(IPAddress("2001:db9::1")!))
        #expect(try AddressBlock(parsing: "0.0.0.0/0").contains(IPAddress("8.8.8.8")!))
        #expect(try AddressBlock(parsing: "::/0").contains(IPAddress("::1")!))
        #expect(try AddressBlock(parsing: "172.16.0.0/12").contains(IPAddress("172.31.0.1")!))
    }

    @Test(arguments: [
        ("", "\"\" has no address before the /"),
        ("/8", "\"/8\" has no address before the /"),
        ("localhost/8", "\"localhost\" is not an IPv4 or IPv6 address"),
        ("10.0.0/8", "\"10.0.0\" is not an IPv4 or IPv6 address"),
        ("10.0.0.0/33", "the prefix length in \"10.0.0.0/33\" must be a number from 0 to 32"),
        ("10.0.0.0/", "the prefix length in \"10.0.0.0/\" must be a number from 0 to 32"),
        ("10.0.0.0/-1", "the prefix length in \"10.0.0.0/-1\" must be a number from 0 to 32"),
        ("10.0.0.0/8/8", "the prefix length in \"10.0.0.0/8/8\" must be a number from 0 to 32"),
        ("::1/129", "the prefix length in \"::1/129\" must be a number from 0 to 128"),
        ("10.0.0.1/8", "\"10.0.0.1/8\" has bits set after the first 8; did you mean 10.0.0.0/8?"),
        ("fd00::1/8", "\"fd00::1/8\" has bits set after the first 8; did you mean fd00::/8?"),
    ])
    func refusesWithClearWords(_ text: String, _ words: String) {
        #expect(throws: AddressBlock.ParseError(description: words)) { try AddressBlock(parsing: text) }
    }
}

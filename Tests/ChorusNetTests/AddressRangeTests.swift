import ChorusNet
import Testing

/// What the per-address limits count against (`AddressRange.limitKey`).
@Suite struct AddressRangeTests {
    @Test func ipv4CountsAsItselfAlsoWhenMappedIntoIPv6() {
        #expect(AddressRange.limitKey("192.0.2.7") == "192.0.2.7")
        #expect(AddressRange.limitKey("::ffff:192.0.2.7") == "192.0.2.7")
        #expect(AddressRange.limitKey("::ffff:c000:0207") == "192.0.2.7")
        // NAT64's well-known prefix carries an IPv4 client: each counts on its own.
        #expect(AddressRange.limitKey("64:ff9b::192.0.2.7") == "192.0.2.7")
        #expect(AddressRange.limitKey("64:ff9b::c000:208") == "192.0.2.8")
    }

    /// Every address of one /64 is one count: its owner can take any of them.
    @Test func ipv6CountsByItsSlash64() {
        let one = AddressRange.limitKey("2001:db8:1:2::1")
        #expect(one == "2001:db8:1:2::/64")
        #expect(AddressRange.limitKey("2001:db8:1:2:ffff:ffff:ffff:fffe") == one)
        #expect(AddressRange.limitKey("2001:DB8:1:2:a:b:c:d") == one)
        #expect(AddressRange.limitKey("2001:db8:1:3::1") != one, "the next /64 is someone else")
        #expect(AddressRange("2001:db8:1:2::/64")?.contains("2001:db8:1:2:9::9") == true)
    }

    @Test func somethingUnparsableCountsAsItself() {
        #expect(AddressRange.limitKey("not an address") == "not an address")
        #expect(AddressRange.limitKey("") == "")
    }
}

import ChorusAddresses

/// A network an operator names for `--exempt` and `--metrics-allow` (`10.0.0.0/8`,
/// `::1/128`), matched against a peer's address as the socket shows it. The parsing and
/// matching are `AddressBlock`'s (ChorusAddresses), which `--push-allow` uses too; this
/// adds what a listening socket's peers need: an IPv4 client shown as `::ffff:a.b.c.d`
/// matches an IPv4 block.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let block: AddressBlock

    /// Loopback in both families: exempt from the per-address limits by default.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    /// Nil for anything that is not an address with an optional `/prefix`. Host bits are
    /// ignored here (`10.0.0.1/8` is 10/8), as these flags always took them.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let address = IPAddress(first) else { return nil }
        let bits = address.bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value) else { return nil }
            prefix = value
        }
        block = AddressBlock(around: address, prefixLength: prefix)
    }

    public func contains(_ address: String) -> Bool {
        guard let parsed = IPAddress(address) else { return false }
        // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d.
        return block.contains(block.network.isIPv4 ? parsed.unmapped : parsed)
    }

    /// The address the per-address limits (`--max-per-ip`, `--register-rate`, failed
    /// logins per address) count against: an IPv4 address itself, also one mapped into
    /// IPv6 (`::ffff:a.b.c.d`) or translated by NAT64's well-known prefix
    /// (`64:ff9b::a.b.c.d`, RFC 6052: on an IPv6-only server every IPv4 client looks like
    /// that); for any other IPv6 address, its /64, written `2001:db8:1:2::/64`. A /64 is
    /// one subscriber's network, and its owner can take as many addresses in it as they
    /// like, so counting single IPv6 addresses would limit nobody. Anything unparsable
    /// counts as itself.
    public static func limitKey(_ address: String) -> String {
        guard let parsed = IPAddress(address), !parsed.isIPv4 else { return address }
        let bytes = parsed.bytes
        let mapped = parsed.unmapped.isIPv4
        let translated = bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        if mapped || translated {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return AddressBlock(around: parsed, prefixLength: 64).description
    }

    public var description: String { block.description }
}

import CLinux
import Foundation

/// An IPv4 or IPv6 network in CIDR form (`10.0.0.0/8`, `::1/128`), for `--exempt`.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefix: Int

    /// Loopback in both families: exempt from the per-address limits by default.
    public static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1/128")!]

    /// Nil for anything that is not an address with an optional `/prefix`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = Self.bytes(of: first) else { return nil }
        let bits = bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value) else { return nil }
            prefix = value
        }
        self.network = bytes
        self.prefix = prefix
    }

    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.bytes(of: address) else { return false }
        // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d.
        if bytes.count == 16 && network.count == 4 && bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == network.count else { return false }
        var remaining = prefix
        for index in 0..<bytes.count where remaining > 0 {
            let take = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - take))
            if bytes[index] & mask != network[index] & mask { return false }
            remaining -= take
        }
        return true
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
        guard let bytes = bytes(of: address), bytes.count == 16 else { return address }
        let mapped = bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff
        let translated = bytes[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0]
        if mapped || translated {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return AddressRange(network: Array(bytes[0..<8]) + Array(repeating: 0, count: 8), prefix: 64).description
    }

    init(network: [UInt8], prefix: Int) {
        self.network = network
        self.prefix = prefix
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: 64)
        var copy = network
        let family = network.count == 4 ? AF_INET : AF_INET6
        inet_ntop(family, &copy, &text, socklen_t(text.count))
        return String(nulTerminated: text) + "/\(prefix)"
    }

    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}

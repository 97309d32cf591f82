import ChorusAddresses
/// Which addresses outbound requests may connect to: public ones, and whatever the
/// operator's allow list (`--push-allow CIDR`) names, so tests can reach loopback.
///
/// Pure: the socket callback (`ConnectGuard`) asks it about the address libcurl is about
/// to connect to, after DNS, so a name that resolves somewhere private is caught however
/// it resolved.
public struct AddressPolicy: Sendable {
    public let allowed: [AddressBlock]

    public init(allowing allowed: [AddressBlock] = []) {
        self.allowed = allowed
    }

    /// Whether a connection to `address` may be opened.
    public func permits(_ address: IPAddress) -> Bool {
        if isAllowListed(address) { return true }
        return Self.isPublic(address)
    }

    /// An allow entry matches the address itself or, for IPv4-mapped IPv6, the IPv4
    /// address inside (what a dual-stack socket actually reaches).
    private func isAllowListed(_ address: IPAddress) -> Bool {
        if allowed.contains(where: { $0.contains(address) }) { return true }
        let b = address.bytes
        if b.count == 16 && b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff,
           let inner = IPAddress(bytes: Array(b[12..<16])) {
            return allowed.contains { $0.contains(inner) }
        }
        return false
    }

    /// Globally reachable by IANA's special-purpose registries (`SpecialPurposeAddresses`).
    public static func isPublic(_ address: IPAddress) -> Bool {
        if address.isIPv4 {
            return !SpecialPurposeAddresses.ipv4.contains { $0.contains(address) }
        }
        if let inner = EmbeddedIPv4.addresses(in: address) {
            return inner.allSatisfy { isPublic($0) }
        }
        guard SpecialPurposeAddresses.globalUnicast.contains(address) else { return false }
        return !SpecialPurposeAddresses.ipv6.contains { $0.contains(address) }
    }
}

import ChorusAddresses
/// IPv6 forms that carry IPv4 addresses inside them. Such an address reaches (or is
/// translated to) the IPv4 host, so it is judged by that host: `::ffff:127.0.0.1` is as
/// much loopback as 127.0.0.1.
enum EmbeddedIPv4 {
    /// The IPv4 addresses `address` stands for, or nil when it is not one of these forms.
    static func addresses(in address: IPAddress) -> [IPAddress]? {
        let b = address.bytes
        guard b.count == 16 else { return nil }
        let tail = IPAddress(bytes: Array(b[12..<16]))!
        // ::ffff:0:0/96 IPv4-mapped (RFC 4291).
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return [tail] }
        // ::/96 IPv4-compatible, deprecated (RFC 4291); :: and ::1 are left to the table.
        if b[0..<12].allSatisfy({ $0 == 0 }) && !(b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1) { return [tail] }
        // 64:ff9b::/96 well-known NAT64 prefix (RFC 6052).
        if b[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0][...] { return [tail] }
        // 2002::/16 6to4 (RFC 3056): the IPv4 address follows the prefix.
        if b[0] == 0x20 && b[1] == 0x02 { return [IPAddress(bytes: Array(b[2..<6]))!] }
        // 2001::/32 Teredo (RFC 4380): the server's IPv4 address, then the client's,
        // stored inverted. Both must be public.
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 {
            let server = IPAddress(bytes: Array(b[4..<8]))!
            let client = IPAddress(bytes: b[12..<16].map { ~$0 })!
            return [server, client]
        }
        return nil
    }
}

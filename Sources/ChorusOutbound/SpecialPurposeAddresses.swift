import ChorusAddresses
/// Addresses no outbound request may reach unless `--push-allow` names them.
///
/// Made from IANA's IPv4 and IPv6 Special-Purpose Address Registries
/// (iana.org/assignments/iana-ipv4-special-registry and iana-ipv6-special-registry):
/// every entry whose "Globally Reachable" is False or N/A, plus multicast and the space
/// IANA has not allocated for global unicast. Where an entry has globally reachable
/// exceptions inside it (192.0.0.9 and .10 in 192.0.0.0/24, a few /32s and /48s in
/// 2001::/23), the whole entry is refused: a push service, a mail relay or an ACME
/// directory never lives there, and refusing too much is the safe mistake.
enum SpecialPurposeAddresses {
    static let ipv4: [AddressBlock] = [
        "0.0.0.0/8",          // "this network" (RFC 791), 0.0.0.0 included
        "10.0.0.0/8",         // private (RFC 1918)
        "100.64.0.0/10",      // shared address space, carrier-grade NAT (RFC 6598)
        "127.0.0.0/8",        // loopback (RFC 1122)
        "169.254.0.0/16",     // link-local, cloud metadata services (RFC 3927)
        "172.16.0.0/12",      // private (RFC 1918)
        "192.0.0.0/24",       // IETF protocol assignments, DS-Lite, NAT64 discovery (RFC 6890)
        "192.0.2.0/24",       // documentation TEST-NET-1 (RFC 5737)
        "192.88.99.0/24",     // deprecated 6to4 relay anycast (RFC 7526)
        "192.168.0.0/16",     // private (RFC 1918)
        "198.18.0.0/15",      // benchmarking (RFC 2544)
        "198.51.100.0/24",    // documentation TEST-NET-2 (RFC 5737)
        "203.0.113.0/24",     // documentation TEST-NET-3 (RFC 5737)
        "224.0.0.0/4",        // multicast (RFC 5771; the IPv4 address space registry)
        "240.0.0.0/4",        // reserved (RFC 1112), 255.255.255.255 broadcast included
    ].map { AddressBlock($0) }

    /// Only 2000::/3 is allocated for global unicast; everything outside it that is not
    /// one of the forms carrying an IPv4 address (`EmbeddedIPv4`) is refused, so the
    /// list below holds only what lies inside 2000::/3 or needs naming anyway.
    static let globalUnicast = AddressBlock("2000::/3")

    static let ipv6: [AddressBlock] = [
        "::/128",             // unspecified (RFC 4291)
        "::1/128",            // loopback (RFC 4291)
        "64:ff9b:1::/48",     // local-use IPv4/IPv6 translation (RFC 8215)
        "100::/64",           // discard-only (RFC 6666)
        "2001::/23",          // IETF protocol assignments (RFC 2928), Teredo judged before this
        "2001:db8::/32",      // documentation (RFC 3849)
        "3fff::/20",          // documentation (RFC 9637)
        "5f00::/16",          // segment routing SIDs (RFC 9602)
        "fc00::/7",           // unique local (RFC 4193)
        "fe80::/10",          // link-local (RFC 4291)
        "fec0::/10",          // deprecated site-local (RFC 3879)
        "ff00::/8",           // multicast (RFC 4291)
    ].map { AddressBlock($0) }
}

import ChorusCrypto
import Foundation

/// The names a client may dial to reach a server bound to `--host`, which the self-made
/// certificate must hold: localhost and 127.0.0.1 always; the address or name given;
/// for a wildcard (0.0.0.0, ::) the machine's host name and every address of its
/// interfaces, so a roommate on the LAN can verify it by whichever one they use.
public struct ListeningNames: Equatable, Sendable {
    public var dnsNames: [String] = ["localhost"]
    public var ipAddresses: [String] = ["127.0.0.1"]

    /// `addresses` lists the interfaces' addresses; when it fails (under a sandbox that
    /// forbids the AF_NETLINK socket glibc needs, say) `warn` gets one line saying so.
    public init(host: String, addresses: () throws -> [String] = Self.interfaceAddresses,
                warn: (String) -> Void = { Log.warn($0) }) {
        if Self.isWildcard(host) {
            if let name = Self.machineName() { add(name) }
            do {
                for address in try addresses() { add(address) }
            } catch {
                warn("cannot list this machine's network addresses (\(error)); a self-signed certificate made for --host \(host) will lack them, and clients that dial them will fail verification")
            }
        } else {
            add(host)
        }
    }

    /// As `SelfSignedCertificate`'s subjectAltName entries: `DNS:name`, `IP:address`.
    public var entries: [String] { dnsNames.map { "DNS:" + $0 } + ipAddresses.map { "IP:" + $0 } }

    private mutating func add(_ name: String) {
        if CertificateNames.covers(entries, host: name) { return }
        if CertificateNames.isAddress(name) {
            ipAddresses.append(name)
        } else if SelfSignedCertificate.isValidDNSName(name) {
            dnsNames.append(name)
        }
    }

    static func isWildcard(_ host: String) -> Bool {
        host.isEmpty || host == "0.0.0.0" || host == "::" || host == "[::]"
    }

    public static func machineName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// IPv4 and IPv6 addresses of the machine's interfaces, but link-local IPv6 ones
    /// (fe80::/10), which need an interface scope no certificate can name. Throws when
    /// getifaddrs fails.
    public static func interfaceAddresses() throws -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else {
            throw StartupError("getifaddrs: \(String(cString: strerror(errno)))")
        }
        guard let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            var bytes: [UInt8] = []
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    bytes = withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                    bytes = withUnsafeBytes(of: inet6.pointee.sin6_addr) { Array($0) }
                }
                if bytes.count == 16 && bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { continue }
            default:
                continue
            }
            if let text = CertificateNames.format(address: bytes), !found.contains(text) { found.append(text) }
        }
        return found
    }
}

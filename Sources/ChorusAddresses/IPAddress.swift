import Foundation
import Glibc

/// An IPv4 (4 bytes) or IPv6 (16 bytes) address in network order.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes.count == 4 }

    /// Nil unless `bytes` holds 4 or 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Dotted IPv4 or textual IPv6 as inet_pton reads them; nil for anything else
    /// (names, a zone suffix, brackets).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// An IPv4 address carried in an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, how a
    /// dual-stack socket shows an IPv4 peer) as itself; any other address unchanged.
    public var unmapped: IPAddress {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return self }
        return IPAddress(bytes: Array(bytes[12...])) ?? self
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        inet_ntop(isIPv4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count))
        return String(nulTerminated: text)
    }
}

extension String {
    /// The text before the first NUL of a C buffer (inet_ntop's, libcurl's error buffer).
    public init(nulTerminated buffer: [CChar]) {
        let end = buffer.firstIndex(of: 0) ?? buffer.endIndex
        self = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

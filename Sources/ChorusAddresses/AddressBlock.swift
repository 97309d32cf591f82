/// A network in CIDR form (`127.0.0.0/8`, `fd00::/8`): what `--push-allow`, `--exempt` and
/// `--metrics-allow` name, and the special-purpose tables of the request-forgery guard.
public struct AddressBlock: Sendable, Hashable, CustomStringConvertible {
    public let network: IPAddress
    public let prefixLength: Int

    /// Why a `--push-allow` value was not a block, in words an operator can act on.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// `ADDRESS/PREFIX`, or a bare address meaning that one address (/32 or /128).
    /// Host bits must be zero, so a typo like `10.0.0.1/8` is caught instead of
    /// silently allowing all of 10/8.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let addressText = parts.first, !addressText.isEmpty else {
            throw ParseError(description: "\"\(text)\" has no address before the /")
        }
        guard let address = IPAddress(addressText) else {
            throw ParseError(description: "\"\(addressText)\" is not an IPv4 or IPv6 address")
        }
        let bits = address.bytes.count * 8
        var length = bits
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(parts[1]), (0...bits).contains(value) else {
                throw ParseError(description: "the prefix length in \"\(text)\" must be a number from 0 to \(bits)")
            }
            length = value
        }
        let masked = Self.masked(address.bytes, to: length)
        guard masked == address.bytes else {
            let suggestion = IPAddress(bytes: masked).map { "\($0)/\(length)" } ?? ""
            throw ParseError(description: "\"\(text)\" has bits set after the first \(length); did you mean \(suggestion)?")
        }
        self.network = address
        self.prefixLength = length
    }

    /// The block of `length` bits around `address`, its host bits cleared.
    public init(around address: IPAddress, prefixLength length: Int) {
        let bits = address.bytes.count * 8
        let kept = min(max(0, length), bits)
        network = IPAddress(bytes: Self.masked(address.bytes, to: kept)) ?? address
        prefixLength = kept
    }

    /// For the fixed tables, whose entries are known to be well formed.
    public init(_ text: String) {
        do { try self.init(parsing: text) } catch { preconditionFailure("bad built-in block \(text): \(error)") }
    }

    /// Whether `address` is in this block. Families never match across: an IPv4-mapped
    /// IPv6 address is turned into its IPv4 address by the caller (`AddressPolicy`).
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        return Self.masked(address.bytes, to: prefixLength) == network.bytes
    }

    public var description: String { "\(network)/\(prefixLength)" }

    static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let keep = min(8, max(0, length - index * 8))
            result[index] &= keep == 0 ? 0 : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return result
    }
}

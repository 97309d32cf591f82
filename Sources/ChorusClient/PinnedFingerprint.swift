/// A SHA-256 certificate fingerprint as a person types it (`--fingerprint ab:cd:...`, any
/// case, colons optional), kept as 64 upper-case hex digits so any spelling compares equal.
public struct PinnedFingerprint: Equatable, CustomStringConvertible {
    public let hex: String

    /// Nil unless the text is 32 bytes of hex (optionally after `SHA256:`).
    public init?(_ text: String) {
        var body = Substring(text.trimmingSpaces)
        if body.uppercased().hasPrefix("SHA256:") { body = body.dropFirst(7) }
        let digits = body.filter { $0 != ":" }.uppercased()
        guard digits.count == 64, digits.allSatisfy(\.isHexDigit) else { return nil }
        hex = digits
    }

    /// `AB:CD:...`, the form `openssl x509 -fingerprint -sha256` and chorusd print.
    public var description: String {
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(String(hex[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends (no Foundation needed).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

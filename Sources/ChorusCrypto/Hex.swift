/// Hex spellings shared by digests, random tokens and certificate fingerprints.
enum Hex {
    private static let lowerDigits = Array("0123456789abcdef".utf8)
    private static let upperDigits = Array("0123456789ABCDEF".utf8)

    /// "0a1b…", the form used for tokens and digests in the protocol.
    static func lowercase(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(lowerDigits[Int(byte >> 4)])
            out.append(lowerDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// "0A:1B:…", the form `openssl x509 -fingerprint` prints, so users can compare by eye.
    static func colonSeparatedUppercase(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 3)
        for (index, byte) in bytes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ":")) }
            out.append(upperDigits[Int(byte >> 4)])
            out.append(upperDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

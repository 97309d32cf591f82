/// base64url (RFC 4648 §5), the alphabet with '-' and '_', as Web Push, VAPID and JOSE use it.
/// Written without '=' padding (RFC 7515 §2); read with or without it, and nothing looser.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The value of each alphabet byte, 0xFF for every other byte.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// `bytes` as base64url without padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= bytes.count {
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(group >> UInt32(shift) & 0x3F)]) }
            index += 3
        }
        switch bytes.count - index {
        case 1:
            let group = UInt32(bytes[index]) << 16
            for shift in [18, 12] { out.append(alphabet[Int(group >> UInt32(shift) & 0x3F)]) }
        case 2:
            let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            for shift in [18, 12, 6] { out.append(alphabet[Int(group >> UInt32(shift) & 0x3F)]) }
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`. Padding is optional but, when present, must make the length a
    /// multiple of 4. Refused: characters outside the alphabet (including '+', '/' and
    /// whitespace), '=' anywhere but the end, an impossible length, and unused low bits that
    /// are not zero (so one value has exactly one unpadded spelling).
    public static func decode(_ text: String) throws -> [UInt8] {
        var digits = Array(text.utf8)
        if let firstPad = digits.firstIndex(of: UInt8(ascii: "=")) {
            let padding = digits.count - firstPad
            guard digits[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") }), padding <= 2, digits.count % 4 == 0 else {
                throw CryptoError("malformed base64url: misplaced '=' padding")
            }
            digits.removeLast(padding)
        }
        guard digits.count % 4 != 1 else { throw CryptoError("malformed base64url: impossible length \(digits.count)") }
        var out = [UInt8]()
        out.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for digit in digits {
            let value = values[Int(digit)]
            guard value != 0xFF else { throw CryptoError("malformed base64url: character outside the alphabet") }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        guard accumulator == 0 else { throw CryptoError("malformed base64url: unused bits are not zero") }
        return out
    }

    /// Decodes and checks the length, for fixed-size values such as keys and salts.
    static func decode(_ text: String, length: Int, what: String) throws -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try decode(text)
        } catch let error as CryptoError {
            throw CryptoError("\(what): \(error.message)")
        }
        guard bytes.count == length else { throw CryptoError.wrongLength(what, expected: length, got: bytes.count) }
        return bytes
    }
}

import Foundation

/// Standard-alphabet base64 without '=' padding, as the PHC string format uses.
enum PHCBase64 {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// nil for empty input, padding, characters outside the alphabet, or an impossible length.
    static func decode(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 != 1 else { return nil }
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
        guard allowed else { return nil }
        let padded = String(text) + String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: padded) else { return nil }
        return [UInt8](data)
    }
}

/// The few JSON strings JOSE and VAPID need, written by hand so the bytes that get signed are
/// exactly the bytes we meant (no key-order or escaping choices left to a serializer).
enum JSONText {
    /// `text` as a JSON string literal: quotes, backslash and control characters escaped
    /// (RFC 8259 §7), everything else as its UTF-8, '/' left alone.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

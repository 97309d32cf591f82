/// RFC 2045 §6.7 quoted-printable for a text part: every line of the result is at most
/// 76 characters, only printable ASCII, CRLF-ended, so a mail path that cuts lines at 998
/// octets or mangles bytes above 127 cannot damage it. A dot that would start a line is
/// encoded too (=2E), so the body never holds the SMTP end-of-data line, whoever does
/// the dot-stuffing.
enum QuotedPrintable {
    static let maxLineLength = 76

    /// `lines` are the text's hard lines, without line endings.
    static func encode(lines: [String]) -> String {
        var output: [String] = []
        for line in lines {
            output += encode(line: Array(line.utf8))
        }
        return output.joined(separator: "\r\n")
    }

    private static func encode(line bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var current = ""
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            let literal: Bool
            switch byte {
            // Space and tab only inside a line: trailing white space may be stripped in transit.
            case 0x20, 0x09: literal = !isLast
            case UInt8(ascii: "="): literal = false
            case UInt8(ascii: "."): literal = !current.isEmpty
            case 0x21...0x7e: literal = true
            default: literal = false
            }
            var token = literal ? String(UnicodeScalar(byte)) : hex(byte)
            // Keep room for the soft break's "=" unless this is the line's last token.
            let limit = isLast ? maxLineLength : maxLineLength - 1
            if current.utf8.count + token.utf8.count > limit {
                lines.append(current + "=")
                current = ""
                if byte == UInt8(ascii: ".") { token = hex(byte) }
            }
            current += token
        }
        lines.append(current)
        return lines
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0f)])
    }
}

/// Byte classes of RFC 9110 §5.6.2 and RFC 9112 that the head parser checks against.
enum HTTPSyntax {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// tchar: the characters of a method or header name.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Visible ASCII: what a request-target may hold (no space, no control, no NUL, no 8-bit byte).
    static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// Controls other than HT, which a field value must not hold (obs-text, 0x80 and up, is allowed).
    static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != tab) || byte == 0x7F
    }

    static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// `bytes` without leading and trailing SP/HT.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isOptionalWhitespace(bytes[start]) { start += 1 }
        while end > start, isOptionalWhitespace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    /// ASCII lowercase of a token (header names are case-insensitive; stored lowercased).
    static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

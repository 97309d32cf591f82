import Foundation

/// Header values built from text users wrote (a task title in a subject, a display
/// name): line breaks and other control characters become spaces, so no value can end
/// its header and start another, and text that is not plain ASCII goes out as RFC 2047
/// encoded-words.
enum MailHeaderText {
    /// Controls (CR and LF among them) become spaces; runs of spaces collapse; ends trimmed.
    static func flattened(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace = scalar.value < 0x20 || scalar.value == 0x7f || (0x80...0x9f).contains(scalar.value)
                || scalar == " " || scalar == "\u{2028}" || scalar == "\u{2029}"
            if isSpace {
                if !lastWasSpace { scalars.append(" ") }
                lastWasSpace = true
            } else {
                scalars.append(scalar)
                lastWasSpace = false
            }
        }
        var result = String(scalars)
        if result.hasSuffix(" ") { result.removeLast() }
        return result
    }

    /// An unstructured value (Subject) after `Name: `. Plain when it is printable ASCII,
    /// cannot be mistaken for an encoded-word, and the line stays within 78 characters;
    /// otherwise encoded-words, folded one per line.
    static func unstructured(_ text: String, headerName: String) -> String {
        let flat = flattened(text)
        let plain = flat.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f } && !flat.contains("=?")
        if plain && headerName.utf8.count + 2 + flat.utf8.count <= 78 { return flat }
        return encodedWords(flat)
    }

    /// A display name (From's "Chorus"): bare when it is atoms and spaces, a quoted string
    /// when it is other printable ASCII, encoded-words otherwise.
    static func phrase(_ text: String) -> String {
        let flat = flattened(text)
        if flat.isEmpty { return "" }
        if flat.utf8.allSatisfy({ MailAddress.isAtext($0) || $0 == 0x20 }) { return flat }
        if flat.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) && !flat.contains("=?") && flat.utf8.count <= 60 {
            return "\"" + flat.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        return encodedWords(flat)
    }

    /// `=?UTF-8?B?…?=` words of at most 42 bytes of text each (56 characters of base64,
    /// 68 with the wrapping, under RFC 2047's 75), never splitting a character, joined by
    /// folding white space (CRLF and a space), which a reader drops between encoded-words.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 42 {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }
}

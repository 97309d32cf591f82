/// Server text made safe to write to a terminal. A server, or someone in the middle of a
/// connection to one, chooses every byte the client prints; raw control characters would
/// let it set the window title, move the cursor and overwrite lines already on screen, and
/// bidirectional controls would let it reorder what is shown around them. So every such
/// character is shown as a visible escape, the way `less` shows them:
///
/// - C0 controls and DEL in caret notation: ESC `^[`, BEL `^G`, NUL `^@`, CR `^M`, LF `^J`,
///   DEL `^?`. A tab stays a tab: it only moves the cursor right, over a line the client
///   has just cleared, and cannot erase or overwrite anything.
/// - C1 controls (U+0080–U+009F) and the bidirectional embeddings, overrides and isolates
///   (U+202A–U+202E, U+2066–U+2069) as `<U+XXXX>`.
/// - Bytes that are not UTF-8 as U+FFFD, the replacement character.
///
/// Backslashes are left alone: JSON lines are full of them. Everything else is shown as
/// it came. The escapes are printable, so making safe text safe again changes nothing.
public enum TerminalSafeText {
    /// One line from the server: every control character escaped, line feeds included.
    public static func line(_ text: String) -> String {
        escaped(text, keepingLineFeeds: false)
    }

    /// One line from the server as received bytes; invalid UTF-8 becomes U+FFFD.
    public static func line<Bytes: Collection<UInt8>>(bytes: Bytes) -> String {
        line(String(decoding: bytes, as: UTF8.self))
    }

    /// The client's own text of several lines that quotes the server (an error message
    /// naming the certificate's names): line feeds kept, every other control escaped.
    public static func message(_ text: String) -> String {
        escaped(text, keepingLineFeeds: true)
    }

    /// How `scalar` is shown; nil when it is shown as it is.
    public static func visible(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x09:
            return nil
        case 0x00...0x1F:
            return "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
        case 0x7F:
            return "^?"
        case 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "<U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + ">"
        default:
            return nil
        }
    }

    private static func escaped(_ text: String, keepingLineFeeds: Bool) -> String {
        // Most lines hold nothing to escape: return them as they are, without a copy.
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLineFeeds) }) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingLineFeeds), let escape = visible(scalar) {
                shown.append(contentsOf: escape.unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, _ keepingLineFeeds: Bool) -> Bool {
        if keepingLineFeeds && scalar == "\n" { return false }
        return visible(scalar) != nil
    }
}

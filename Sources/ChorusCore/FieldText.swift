/// What text a stored field may hold (Protocol.md §2, "Fields"), checked in one place for
/// every command that sets one.
///
/// One-line fields (task titles, room names) are shown in columns, in event lines and
/// inside other people's text, and bots paste them into request lines of their own: a
/// newline there is a second request, and a tab or an escape breaks the table. Notes
/// may span lines; a `\n` is all they may hold besides tabs and printing characters.
///
/// Names and titles also refuse the bidirectional controls (`BidiControl`): shown in a
/// column or inside someone else's sentence, an override reorders what follows it, so
/// `invoice‮fdp.exe` reads as `invoiceexe.pdf`. Texts keep them (a right-to-left writer
/// may need them); text mode closes what a text opens (ChorusRendering's `BidiClosing`).
public enum FieldText {
    /// Trimmed of spaces, 1...`maxCharacters` characters, no control characters (tab
    /// included), no line or paragraph separators and no bidirectional controls. `what`
    /// names the field in the error.
    public static func oneLine(_ raw: String, _ what: String, maxCharacters: Int) throws(DomainError) -> String {
        let text = withoutOuterSpaces(raw)
        guard !text.isEmpty, text.count <= maxCharacters else { throw .fieldLength(what, max: maxCharacters) }
        if let bad = text.unicodeScalars.first(where: breaksLine) {
            throw .fieldNotOneLine(what, character: describe(bad))
        }
        if let bad = text.unicodeScalars.first(where: { BidiControl($0) != nil }) {
            throw .fieldBidiControl(what, character: describe(bad))
        }
        return text
    }

    /// Free text (notes, chat lines): newlines and tabs allowed, other control characters
    /// and separators not; at most `maxCharacters` characters.
    public static func multiLine(_ text: String, _ what: String, maxCharacters: Int) throws(DomainError) {
        guard text.count <= maxCharacters else { throw .fieldTooLong(what, max: maxCharacters) }
        // Every chat line comes through here: look at scalars only when a byte could start a bad one.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) else { return }
        if let bad = text.unicodeScalars.first(where: { $0 != "\n" && $0 != "\t" && breaksLine($0) }) {
            throw .fieldCharacter(what, character: describe(bad))
        }
    }

    /// C0 and C1 controls, DEL, and U+2028/U+2029, which some decoders and line readers
    /// (Python's `splitlines`, JavaScript) also take for a line end.
    static func breaksLine(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// "newline", "tab", or "U+XXXX".
    static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "newline"
        case "\t": return "tab"
        case "\r": return "carriage return"
        default:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            return BidiControl(scalar) == nil ? "control character " + code : code
        }
    }

    /// Without leading and trailing spaces only: tabs and newlines are refused, not
    /// hidden (unlike the client's `trimmingSpaces`, which reads files and flags).
    private static func withoutOuterSpaces(_ raw: String) -> String {
        let scalars = raw.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " }),
              let last = scalars.lastIndex(where: { $0 != " " }) else { return "" }
        return String(scalars[first...last])
    }
}

/// The Unicode bidirectional formatting characters that change the order of what follows
/// them until closed (UAX #9, 2.1-2.4). LRM, RLM and ALM (U+200E, U+200F, U+061C) only mark
/// a direction, reorder nothing past themselves, and are not here.
public enum BidiControl: Sendable, Equatable {
    /// LRE, RLE, LRO, RLO (U+202A, U+202B, U+202D, U+202E): closed by PDF.
    case embeddingOrOverride
    /// PDF, U+202C.
    case popDirectionalFormatting
    /// LRI, RLI, FSI (U+2066-U+2068): closed by PDI.
    case isolate
    /// PDI, U+2069.
    case popDirectionalIsolate

    /// Nil for every other scalar.
    public init?(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x202A, 0x202B, 0x202D, 0x202E: self = .embeddingOrOverride
        case 0x202C: self = .popDirectionalFormatting
        case 0x2066...0x2068: self = .isolate
        case 0x2069: self = .popDirectionalIsolate
        default: return nil
        }
    }

    public static let pdf: Unicode.Scalar = "\u{202C}"
    public static let pdi: Unicode.Scalar = "\u{2069}"
}

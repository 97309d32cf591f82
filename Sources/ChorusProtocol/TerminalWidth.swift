/// How many terminal columns a character takes: 2 for East Asian wide and fullwidth
/// characters and for emoji drawn as pictures, 0 for marks and format characters that draw
/// nothing by themselves, 1 for the rest. (What `wcwidth(3)` answers, without depending on
/// the C locale.) The client's line editor keeps its line inside the terminal with it, and
/// the server lines up its text tables with it (`padded(toColumns:)`, `cut(toColumns:)`).
/// Counted per grapheme cluster: a flag or a ZWJ family is one picture, two columns.
public enum TerminalWidth {
    public static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        let properties = first.properties
        if properties.isEmojiPresentation { return 2 }
        // A text-style emoji asked to be drawn as a picture (U+FE0F), e.g. ❤️.
        if properties.isEmoji && character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        return isWide(first.value) ? 2 : 1
    }

    public static func of<S: Sequence>(_ characters: S) -> Int where S.Element == Character {
        characters.reduce(0) { $0 + of($1) }
    }

    /// Unicode's East Asian Wide and Fullwidth blocks (UAX #11), in the ranges terminals use.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F,   // Hangul Jamo leading consonants
             0x2E80...0x303E,   // CJK radicals, Kangxi, ideographic description, CJK symbols
             0x3041...0x33FF,   // Hiragana, Katakana, Bopomofo, Hangul compatibility, CJK compatibility
             0x3400...0x4DBF,   // CJK extension A
             0x4E00...0x9FFF,   // CJK unified ideographs
             0xA000...0xA4CF,   // Yi
             0xA960...0xA97F,   // Hangul Jamo extended A
             0xAC00...0xD7A3,   // Hangul syllables
             0xF900...0xFAFF,   // CJK compatibility ideographs
             0xFE10...0xFE19,   // vertical forms
             0xFE30...0xFE6F,   // CJK compatibility forms, small forms
             0xFF00...0xFF60,   // fullwidth forms
             0xFFE0...0xFFE6,   // fullwidth signs
             0x1F300...0x1F64F, // pictographs and emoticons
             0x1F900...0x1F9FF, // supplemental pictographs
             0x20000...0x2FFFD, // CJK extensions B and later
             0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    /// The terminal columns this text takes.
    public var terminalColumns: Int { TerminalWidth.of(self) }

    /// Followed by spaces up to `columns` terminal columns; a longer text is left whole.
    public func padded(toColumns columns: Int) -> String {
        let width = terminalColumns
        return width >= columns ? self : self + String(repeating: " ", count: columns - width)
    }

    /// At most `columns` terminal columns, cut between whole characters (grapheme
    /// clusters) and ending in `…` when something was cut.
    public func cut(toColumns columns: Int) -> String {
        guard terminalColumns > columns else { return self }
        guard columns > 0 else { return "" }
        var kept = ""
        var width = 0
        for character in self {
            let next = TerminalWidth.of(character)
            if width + next > columns - 1 { break }
            kept.append(character)
            width += next
        }
        return kept + "…"
    }

    /// Exactly `columns` terminal columns: cut, then padded (a wide character that does not
    /// fit whole leaves a space instead).
    public func fitted(toColumns columns: Int) -> String {
        cut(toColumns: columns).padded(toColumns: columns)
    }
}

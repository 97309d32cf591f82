import ChorusClient
import Testing

/// `TerminalSafeText`, the one sanitiser every line of server text passes on its way to the
/// terminal: what each kind of control character becomes, and what is left alone.
struct TerminalSafeTextTests {
    /// C0 controls and DEL in caret notation; ESC sequences show as text.
    @Test func c0ControlsAndDeleteInCaretNotation() {
        #expect(TerminalSafeText.line("\u{1B}]2;pwned\u{07}") == "^[]2;pwned^G")
        #expect(TerminalSafeText.line("\u{1B}[1A\u{1B}[2K") == "^[[1A^[[2K")
        #expect(TerminalSafeText.line("a\u{0}b\u{7F}c\u{8}d") == "a^@b^?c^Hd")
        #expect(TerminalSafeText.line("left\rright\nnext") == "left^Mright^Jnext")
        #expect(TerminalSafeText.line("\u{1F}\u{1A}") == "^_^Z")
    }

    /// C1 controls and the bidirectional embeddings, overrides and isolates as `<U+XXXX>`.
    @Test func c1AndBidiControlsAsCodePoints() {
        #expect(TerminalSafeText.line("\u{9B}31m\u{80}\u{9F}") == "<U+009B>31m<U+0080><U+009F>")
        for value: UInt32 in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] {
            let scalar = Unicode.Scalar(value)!
            #expect(TerminalSafeText.line("a\(scalar)b") == "a<U+\(String(value, radix: 16, uppercase: true))>b")
        }
    }

    /// Bytes that are not UTF-8 become U+FFFD, never reach the terminal raw.
    @Test func invalidUTF8BecomesTheReplacementCharacter() {
        #expect(TerminalSafeText.line(bytes: [0x61, 0x9B, 0x31, 0x6D]) == "a\u{FFFD}1m")
        #expect(TerminalSafeText.line(bytes: [0xFF, 0xFE]) == "\u{FFFD}\u{FFFD}")
        #expect(TerminalSafeText.line(bytes: Array("ok \u{1B}".utf8)) == "ok ^[")
    }

    /// Ordinary text, tabs, backslashes (JSON is full of them), accents, CJK, emoji and
    /// bidi marks that only direct (not override) are left as they are.
    @Test func ordinaryTextIsLeftAlone() {
        for text in ["OK logged in as bob", "a\tb", #"{"text":"say \"hi\"\n\u001b"}"#, "café 日本 👋🏽", "שלום abc",
                     "[######----] 60%", ""] {
            #expect(TerminalSafeText.line(text) == text)
        }
    }

    /// The client's own messages of several lines keep their line feeds, nothing else.
    @Test func messagesKeepLineFeeds() {
        #expect(TerminalSafeText.message("one\ntwo \u{1B}[2J\r") == "one\ntwo ^[[2J^M")
    }

    /// Over every scalar up to U+FFFF (and a few beyond): the output holds no control
    /// character but tab, and making it safe again changes nothing.
    @Test func noControlSurvivesAndEscapingTwiceChangesNothing() {
        var text = String.UnicodeScalarView()
        for value in UInt32(0)...0xFFFF { if let scalar = Unicode.Scalar(value) { text.append(scalar) } }
        text.append(contentsOf: "\u{1F600}\u{E0001}\u{10FFFF}".unicodeScalars)
        let shown = TerminalSafeText.line(String(text))
        let unsafe = shown.unicodeScalars.filter { scalar in
            scalar != "\t" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        }
        #expect(unsafe.isEmpty)
        #expect(TerminalSafeText.line(shown) == shown)
    }
}

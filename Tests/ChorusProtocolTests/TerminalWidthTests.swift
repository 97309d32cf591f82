import ChorusProtocol
import Testing

/// Text tables are lined up in terminal columns and cut between whole characters.
@Suite struct TerminalWidthTests {
    static let family = "👨‍👩‍👧‍👦"
    static let flag = "🇯🇵"

    @Test func widths() {
        #expect("abc".terminalColumns == 3)
        #expect("牛乳を買う".terminalColumns == 10)
        #expect(Self.family.terminalColumns == 2)
        #expect(Self.flag.terminalColumns == 2)
        #expect("❤️".terminalColumns == 2)
        #expect("e\u{301}".terminalColumns == 1)
    }

    @Test func paddingCountsColumns() {
        #expect("牛乳".padded(toColumns: 6) == "牛乳  ")
        #expect((Self.flag + Self.family).padded(toColumns: 6) == Self.flag + Self.family + "  ")
        // Longer text is left whole: a label or a name is never cut by padding.
        #expect("abcdef".padded(toColumns: 3) == "abcdef")
    }

    @Test func cuttingKeepsWholeCharacters() {
        #expect("牛乳を買う".cut(toColumns: 6) == "牛乳…")
        #expect("牛乳を買う".fitted(toColumns: 6) == "牛乳… ")
        let emoji = String(repeating: Self.family + Self.flag, count: 5)
        let cut = emoji.fitted(toColumns: 7)
        #expect(cut == Self.family + Self.flag + Self.family + "…")
        #expect(cut.terminalColumns == 7)
        #expect(!cut.unicodeScalars.contains("\u{FFFD}"))
        #expect("short".fitted(toColumns: 8) == "short   ")
        #expect("exactly8".fitted(toColumns: 8) == "exactly8")
    }
}

import ChorusCore
import Testing

/// One-line fields hold no line breaks or control characters; notes may hold newlines.
@Suite struct FieldTextTests {
    @Test func oneLineFields() throws {
        #expect(try FieldText.oneLine("  Dishes  ", "a title", maxCharacters: 10) == "Dishes")
        #expect(try FieldText.oneLine("牛乳を買う 👨‍👩‍👧", "a title", maxCharacters: 10) == "牛乳を買う 👨‍👩‍👧")
        for bad in ["Dishes\nSAY 1 injected", "a\rb", "a\tb", "a\u{1B}[2Jb", "a\u{85}b", "a\u{2028}b", "a\u{7F}b", "   ", ""] {
            #expect(throws: DomainError.self, "\(bad.debugDescription)") {
                try FieldText.oneLine(bad, "a title", maxCharacters: 200)
            }
        }
        do {
            _ = try FieldText.oneLine("Dishes\nSAY 1 injected", "a title", maxCharacters: 200)
        } catch {
            #expect(error == .fieldNotOneLine("a title", character: "newline"))
            #expect(error.message.contains("newline"))
        }
        #expect(throws: DomainError.self) { try FieldText.oneLine("elevenchars", "a title", maxCharacters: 10) }
    }

    @Test func multiLineFields() throws {
        try FieldText.multiLine("first line\nsecond\tline", "notes", maxCharacters: 100)
        try FieldText.multiLine("prix — 5 €", "notes", maxCharacters: 100)
        for bad in ["a\rb", "a\u{0}b", "a\u{1B}b", "a\u{9B}b", "a\u{2029}b"] {
            #expect(throws: DomainError.self, "\(bad.debugDescription)") {
                try FieldText.multiLine(bad, "notes", maxCharacters: 100)
            }
        }
        #expect(throws: DomainError.self) { try FieldText.multiLine("xxxx", "notes", maxCharacters: 3) }
    }
}

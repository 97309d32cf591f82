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

    /// Names and titles refuse the bidirectional controls (CONTRACT §11); the marks that
    /// reorder nothing (LRM, RLM, ALM) and right-to-left letters stay allowed.
    @Test func oneLineFieldsRefuseBidiControls() throws {
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] {
            let text = "invoice\(String(Unicode.Scalar(UInt32(scalar))!))fdp.exe"
            let hex = String(scalar, radix: 16, uppercase: true)
            #expect(throws: DomainError.fieldBidiControl("a title", character: "U+\(hex)")) {
                try FieldText.oneLine(text, "a title", maxCharacters: 200)
            }
        }
        #expect(try FieldText.oneLine("שלום \u{200F}Dishes\u{200E}", "a title", maxCharacters: 200) == "שלום \u{200F}Dishes\u{200E}")
        #expect(DomainError.fieldBidiControl("a room name", character: "U+202E").message
            == "a room name may not hold the bidirectional control U+202E: it could reorder what is shown around it")
        // Texts keep them.
        try FieldText.multiLine("see \u{202E}txt.exe", "a message", maxCharacters: 100)
    }
}

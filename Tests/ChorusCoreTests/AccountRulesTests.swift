import ChorusCore
import Testing

/// The account rules of CONTRACT §4.
@Suite struct AccountRulesTests {
    /// Names fold to lower case and must be 2-32 of a-z 0-9 . _ -.
    @Test func names() throws {
        #expect(try AccountRules.normalizedName("Alice") == "alice")
        #expect(try AccountRules.normalizedName("a.b_c-9") == "a.b_c-9")
        for bad in ["a", String(repeating: "x", count: 33), "al ice", "alice!", "élise", ""] {
            #expect(throws: DomainError.self, "\(bad)") { try AccountRules.normalizedName(bad) }
        }
    }

    /// Passwords are 15-1024 bytes, counted in UTF-8.
    @Test func passwords() throws {
        try AccountRules.checkPassword(String(repeating: "x", count: 15))
        try AccountRules.checkPassword(String(repeating: "x", count: 1024))
        try AccountRules.checkPassword("ééééééééé") // 9 characters, 18 bytes
        #expect(throws: DomainError.self) { try AccountRules.checkPassword(String(repeating: "x", count: 14)) }
        #expect(throws: DomainError.self) { try AccountRules.checkPassword(String(repeating: "x", count: 1025)) }
    }

    /// Token labels are 1-64 of A-Z a-z 0-9 . _ -, kept as typed.
    @Test func tokenLabels() throws {
        for good in ["ci", "Cron-Job_2.x", String(repeating: "L", count: 64)] { try AccountRules.checkTokenLabel(good) }
        for bad in ["", String(repeating: "L", count: 65), "my bot", "bot!", "bøt", "a/b"] {
            #expect(throws: DomainError.badTokenLabel, "\(bad)") { try AccountRules.checkTokenLabel(bad) }
        }
    }
}

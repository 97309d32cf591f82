/// The name, password and token label rules of CONTRACT §4, checked before any hashing or storage.
public enum AccountRules {
    public static let nameLength = 2...32
    public static let passwordBytes = 15...1024

    /// Folds to lower case, then requires 2–32 of `a–z 0–9 . _ -`.
    public static func normalizedName(_ raw: String) throws(DomainError) -> String {
        let name = raw.lowercased()
        guard nameLength.contains(name.utf8.count), name.utf8.allSatisfy(isNameByte) else {
            throw .badName(shown(raw))
        }
        return name
    }

    /// 15–1024 bytes of UTF-8, any characters, never truncated.
    public static func checkPassword(_ password: String) throws(DomainError) {
        let count = password.utf8.count
        guard passwordBytes.contains(count) else {
            throw .badPasswordLength(count)
        }
    }

    public static let tokenLabelLength = 1...64

    /// 1–64 of `A–Z a–z 0–9 . _ -`, as typed: a label is shown back, never folded.
    public static func checkTokenLabel(_ label: String) throws(DomainError) {
        guard tokenLabelLength.contains(label.utf8.count),
              label.utf8.allSatisfy({ isNameByte($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else { throw .badTokenLabel }
    }

    /// Only a password session makes tokens: a stolen token (a lost phone's, a leaked bot's)
    /// must not mint another that outlives revoking it. `signedInWith` is the kind of token
    /// the session logged in with, nil for a password.
    public static func checkMayMakeToken(signedInWith token: TokenKind?) throws(DomainError) {
        if token != nil { throw .tokenMakesNoTokens }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Echoes a rejected name back without letting a huge one flood the reply.
    private static func shown(_ raw: String) -> String {
        raw.count > 40 ? String(raw.prefix(40)) + "..." : raw
    }
}

import ChorusCore

/// A token as listed: never its secret.
public struct TokenRecord: Sendable, Equatable {
    public let id: Int64
    public let label: String
    public let kind: TokenKind
    public let created: String
    public let lastUsed: String?

    public init(id: Int64, label: String, kind: TokenKind, created: String, lastUsed: String?) {
        self.id = id
        self.label = label
        self.kind = kind
        self.created = created
        self.lastUsed = lastUsed
    }

    /// The stored word back as a kind; a word this program does not know reads as a bot's,
    /// the kind that grants nothing more than the other.
    public static func kind(stored word: String) -> TokenKind {
        TokenKind(rawValue: word) ?? .standard
    }
}

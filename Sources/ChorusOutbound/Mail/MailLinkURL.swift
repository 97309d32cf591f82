/// A URL a message links to (a task, the unsubscribe address): https, printable ASCII,
/// no space, quote or angle bracket, so it can sit in `<…>` in a header and in an
/// `href="…"` without escaping, and short enough that its header line stays far under
/// SMTP's 998 octets.
public struct MailLinkURL: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public static let maxLength = 900

    public init(_ text: String) throws(Invalid) {
        guard text.lowercased().hasPrefix("https://"), text.utf8.count > "https://".utf8.count else {
            throw Invalid(description: "a link in a mail must be an https:// URL")
        }
        guard text.utf8.count <= Self.maxLength else {
            throw Invalid(description: "a link in a mail has at most \(Self.maxLength) characters")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && !"<>\"\\`{}|^".utf8.contains($0) }) else {
            throw Invalid(description: "a link in a mail must be percent-encoded ASCII without spaces, quotes or brackets")
        }
        self.text = text
    }

    public var description: String { text }
}

/// An e-mail address as mail is sent to and from here: `local@domain`, ASCII only (no
/// SMTPUTF8), a dot-atom local part (RFC 5322 §3.4.1, no quoted strings) and a domain
/// of host-name labels. Anything else is refused rather than repaired, so what reaches
/// a header or an SMTP command can hold no space, bracket or line break.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    public let localPart: String
    public let domain: String

    /// Why a text was not an address, in words a user or operator can act on.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(parsing text: String) throws(ParseError) {
        // RFC 5321 §4.5.3.1.3: a path is at most 256 octets, brackets included.
        guard !text.isEmpty, text.utf8.count <= 254 else {
            throw ParseError(description: "an e-mail address has 1 to 254 characters")
        }
        guard let at = text.lastIndex(of: "@") else {
            throw ParseError(description: "\"\(Self.shown(text))\" has no @")
        }
        let local = String(text[..<at])
        let domain = String(text[text.index(after: at)...])
        guard (1...64).contains(local.utf8.count), Self.isDotAtom(local) else {
            throw ParseError(description: "the part before the @ must be 1 to 64 letters, digits or !#$%&'*+-/=?^_`{|}~, with single dots between them")
        }
        guard Self.isDomain(domain) else {
            throw ParseError(description: "\"\(Self.shown(domain))\" is not a domain name (letters, digits and hyphens, dot-separated)")
        }
        self.localPart = local
        self.domain = domain
    }

    public var description: String { "\(localPart)@\(domain)" }

    /// RFC 5322 atext.
    static func isAtext(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-/=?^_`{|}~".utf8.contains(byte)
        }
    }

    private static func isDotAtom(_ text: String) -> Bool {
        let atoms = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return atoms.allSatisfy { !$0.isEmpty && $0.allSatisfy(isAtext) }
    }

    /// Host-name labels (RFC 1123): 1 to 63 letters, digits or inner hyphens each.
    static func isDomain(_ text: String) -> Bool {
        guard (1...253).contains(text.utf8.count) else { return false }
        let labels = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-") else { return false }
            return label.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
                default: false
                }
            }
        }
    }

    /// The text echoed in an error, cut short and with control characters replaced, so a
    /// hostile value cannot forge a log line.
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7f ? "?" : $0 }))
    }
}

import Foundation

/// One notice as an RFC 5322 message: a `multipart/alternative` of UTF-8 plain text and a
/// small HTML version, both quoted-printable, with CRLF line endings and no line over 76
/// characters (headers aside, which stay far under 998). Pure: the date and the random
/// Message-ID and boundary are fixed when it is made, so `rendered()` is repeatable.
public struct MailMessage: Sendable {
    /// A link to the task the notice is about.
    public struct Link: Sendable, Hashable {
        public let url: MailLinkURL
        /// The words of the link (`Open the task`); user text is allowed, it is escaped.
        public let label: String

        public init(url: MailLinkURL, label: String) {
            self.url = url
            self.label = label
        }
    }

    public let from: MailAddress
    /// From's display name, `Chorus` unless told.
    public let fromName: String
    public let to: MailAddress
    public let subject: String
    /// The notice's words, lines separated by any of CRLF, CR or LF.
    public let text: String
    public let link: Link?
    /// Given, it becomes `List-Unsubscribe` with one-click unsubscription (RFC 8058).
    public let unsubscribe: MailLinkURL?
    public let date: Date
    /// `<random@from-domain>`, for logs and threading.
    public let messageID: String
    let boundary: String

    public init(from: MailAddress, to: MailAddress, subject: String, text: String, link: Link? = nil,
                unsubscribe: MailLinkURL? = nil, fromName: String = "Chorus", date: Date = Date()) {
        self.from = from
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.text = text
        self.link = link
        self.unsubscribe = unsubscribe
        self.date = date
        self.messageID = "<\(Self.randomHex(bytes: 16))@\(from.domain)>"
        // "=_" cannot occur in a quoted-printable body (RFC 2045 §5.1's suggestion),
        // whatever the user wrote.
        self.boundary = "=_chorus-alt-" + Self.randomHex(bytes: 12)
    }

    /// The whole message, CRLF-ended lines, ready for the DATA phase.
    public func rendered() -> [UInt8] {
        let fromPhrase = MailHeaderText.phrase(fromName)
        var headers = [
            "From: " + (fromPhrase.isEmpty ? "<\(from)>" : "\(fromPhrase) <\(from)>"),
            "To: <\(to)>",
            "Subject: " + MailHeaderText.unstructured(subject, headerName: "Subject"),
            "Date: " + MailDate.format(date),
            "Message-ID: " + messageID,
            "MIME-Version: 1.0",
            // RFC 3834: machine-made, so auto-responders stay quiet.
            "Auto-Submitted: auto-generated",
        ]
        if let unsubscribe {
            headers.append("List-Unsubscribe: <\(unsubscribe.text)>")
            headers.append("List-Unsubscribe-Post: List-Unsubscribe=One-Click")
        }
        // Folded, so the line stays within 78 characters.
        headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")

        let lines = Self.lines(of: text)
        var body = [
            "--\(boundary)",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            // The trailing empty line ends the text with a line break of its own.
            QuotedPrintable.encode(lines: plainLines(lines) + [""]),
            "--\(boundary)",
            "Content-Type: text/html; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            QuotedPrintable.encode(lines: MailHTML.document(title: MailHeaderText.flattened(subject), lines: lines, link: link, unsubscribe: unsubscribe) + [""]),
            "--\(boundary)--",
        ]
        body.append("")
        return Array((headers + [""] + body).joined(separator: "\r\n").utf8)
    }

    private func plainLines(_ lines: [String]) -> [String] {
        var result = lines
        if let link {
            result += ["", "\(Self.flatLabel(link.label)): \(link.url.text)"]
        }
        if let unsubscribe {
            result += ["", "-- ", "Unsubscribe from these e-mails: \(unsubscribe.text)"]
        }
        return result
    }

    private static func flatLabel(_ label: String) -> String {
        MailHeaderText.flattened(label)
    }

    /// The text's lines, whatever ended them, with control characters other than tab
    /// dropped (a NUL or an escape sequence has no place in a notice).
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r":
                lines.append(String(current))
                current = String.UnicodeScalarView()
                previousWasCR = true
                continue
            case "\n":
                if !previousWasCR {
                    lines.append(String(current))
                    current = String.UnicodeScalarView()
                }
            case "\t":
                current.append(scalar)
            default:
                if scalar.value >= 0x20 && scalar.value != 0x7f && !(0x80...0x9f).contains(scalar.value) {
                    current.append(scalar)
                }
            }
            previousWasCR = false
        }
        lines.append(String(current))
        return lines
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        var text = ""
        for _ in 0..<count {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}

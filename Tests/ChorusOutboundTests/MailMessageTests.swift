@testable import ChorusOutbound
import ChorusTestSupport
import Foundation
import Testing

/// The message builder, its output read back by Python's `email` package: headers,
/// both parts, encoded subjects, escaping, and that no user text can add a header or
/// break the SMTP framing.
@Suite(.enabled(if: MailParser.isUsable, "needs /usr/bin/python3"))
struct MailMessageTests {
    static let from = try! MailAddress(parsing: "chorus@chorus.test")
    static let to = try! MailAddress(parsing: "alice@example.com")
    static let taskLink = MailMessage.Link(url: try! MailLinkURL("https://chorus.test/#task=42"), label: "Open the task")
    static let unsubscribe = try! MailLinkURL("https://chorus.test/unsubscribe/SECRET")

    static func message(subject: String = "Dishes are due", text: String = "Alice asked you to do the dishes.\nBy tonight, please.",
                        link: MailMessage.Link? = taskLink, unsubscribe: MailLinkURL? = unsubscribe, fromName: String = "Chorus") -> MailMessage {
        MailMessage(from: from, to: to, subject: subject, text: text, link: link, unsubscribe: unsubscribe, fromName: fromName,
                    date: Date(timeIntervalSince1970: 1_800_000_000))
    }

    /// Lines of the rendered message, split on CRLF only.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
                lines.append(current)
                current = []
                index += 2
            } else {
                current.append(bytes[index])
                index += 1
            }
        }
        lines.append(current)
        return lines
    }

    @Test func aNoticeParsesBackWithEveryPart() throws {
        let message = Self.message()
        let parsed = try MailParser.parse(message.rendered())
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        #expect(parsed.string("from_name") == "Chorus")
        #expect(parsed.string("from_address") == "chorus@chorus.test")
        #expect(parsed.string("to_address") == "alice@example.com")
        #expect(parsed.string("Subject") == "Dishes are due")
        #expect(parsed.string("date") == "2027-01-15T08:00:00+00:00")
        #expect(parsed.string("Message-ID") == message.messageID)
        #expect(message.messageID.hasSuffix("@chorus.test>") && message.messageID.count == 1 + 32 + 1 + 11 + 1)
        #expect(parsed.string("MIME-Version") == "1.0")
        #expect(parsed.string("Auto-Submitted") == "auto-generated")
        #expect(parsed.string("List-Unsubscribe") == "<https://chorus.test/unsubscribe/SECRET>")
        #expect(parsed.string("List-Unsubscribe-Post") == "List-Unsubscribe=One-Click")
        #expect(parsed.string("content_type") == "multipart/alternative")
        #expect(parsed.fields["parts"] as? [String] == ["text/plain", "text/html"])
        let plain = try #require(parsed.string("plain"))
        #expect(plain.hasPrefix("Alice asked you to do the dishes.\nBy tonight, please.\n\nOpen the task: https://chorus.test/#task=42\n"))
        #expect(plain.contains("Unsubscribe from these e-mails: https://chorus.test/unsubscribe/SECRET"))
        let html = try #require(parsed.string("html"))
        #expect(html.contains("<p>Alice asked you to do the dishes.<br>\nBy tonight, please.</p>"))
        #expect(html.contains("<a href=\"https://chorus.test/#task=42\">Open the task</a>"))
        #expect(html.contains("<a href=\"https://chorus.test/unsubscribe/SECRET\">"))
        // A second message gets its own identifier.
        #expect(Self.message().messageID != message.messageID)
    }

    @Test func withoutAnUnsubscribeAddressThereIsNoListHeader() throws {
        let parsed = try MailParser.parse(Self.message(link: nil, unsubscribe: nil).rendered())
        #expect(parsed.defects.isEmpty)
        #expect(!parsed.headerNames.contains("List-Unsubscribe"))
        #expect(!parsed.headerNames.contains("List-Unsubscribe-Post"))
        #expect(parsed.string("plain") == "Alice asked you to do the dishes.\nBy tonight, please.\n")
    }

    @Test func aNonASCIISubjectIsEncodedAndReadsBack() throws {
        let subjects = [
            "Spülen 🍽️ bis heute Abend",
            "Plain ASCII that mentions =?UTF-8?B?x?= on purpose",
            String(repeating: "Wäsche aufhängen, ", count: 20) + "日本語",
            String(repeating: "long ascii subject ", count: 30),
        ]
        for subject in subjects {
            let bytes = Self.message(subject: subject).rendered()
            let headerLines = Self.lines(bytes).prefix { !$0.isEmpty }
            // Every header byte is ASCII and every line short, encoded or not.
            #expect(headerLines.allSatisfy { $0.allSatisfy { $0 < 0x80 } && $0.count <= 78 }, "\(subject)")
            let parsed = try MailParser.parse(bytes)
            #expect(parsed.defects.isEmpty, "\(parsed.defects)")
            #expect(parsed.string("Subject") == subject.trimmingCharacters(in: .whitespaces), "\(subject)")
        }
        let display = try MailParser.parse(Self.message(fromName: "Chörus \"the\" app").rendered())
        #expect(display.string("from_name") == "Chörus \"the\" app")
        let quoted = try MailParser.parse(Self.message(fromName: "Chorus (home), \"flat\"").rendered())
        #expect(quoted.string("from_name") == "Chorus (home), \"flat\"")
        #expect(quoted.string("from_address") == "chorus@chorus.test")
    }

    @Test func userTextCannotAddAHeader() throws {
        let message = Self.message(subject: "Hi\r\nBcc: evil@example.com\r\n\r\nbody", fromName: "Eve\nX-Evil: 1\r")
        let bytes = message.rendered()
        let parsed = try MailParser.parse(bytes)
        #expect(parsed.defects.isEmpty)
        #expect(!parsed.headerNames.contains("Bcc"))
        #expect(!parsed.headerNames.contains("X-Evil"))
        #expect(parsed.string("Subject") == "Hi Bcc: evil@example.com body")
        #expect(parsed.string("from_name") == "Eve X-Evil: 1")
        #expect(parsed.string("from_address") == "chorus@chorus.test")
    }

    @Test func userTextIsEscapedInTheHTMLPart() throws {
        let text = "<script>alert(1)</script> & \"quotes\" 'single'"
        let parsed = try MailParser.parse(Self.message(subject: "<b>bold</b>", text: text,
                                                       link: MailMessage.Link(url: Self.taskLink.url, label: "<img src=x>")).rendered())
        let html = try #require(parsed.string("html"))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;single&#39;"))
        #expect(html.contains("<title>&lt;b&gt;bold&lt;/b&gt;</title>"))
        #expect(html.contains("&lt;img src=x&gt;</a>"))
        #expect(parsed.string("plain")?.hasPrefix(text + "\n") == true)
    }

    /// Long lines, lone dots, bare CR and LF, NUL and trailing spaces: the output is short
    /// CRLF lines of ASCII with no line a lone dot, and the text reads back as written
    /// (line endings made one kind, control characters dropped).
    @Test func anyTextComesOutAsShortSafeLines() throws {
        let long = String(repeating: "ä€x=. ", count: 1_000)
        let text = "first\r.\rthird\n.leading dot\n\n\u{0}nul and \u{1b}escape\ntrailing   \n" + long + "\r\n."
        let bytes = Self.message(text: text).rendered()
        #expect(bytes.allSatisfy { $0 < 0x80 && $0 != 0 })
        let lines = Self.lines(bytes)
        #expect(lines.allSatisfy { !$0.contains(13) && !$0.contains(10) }, "a bare CR or LF")
        #expect(lines.allSatisfy { $0.count <= 78 }, "a line longer than 78")
        #expect(!lines.contains([UInt8(ascii: ".")]), "a lone dot line")
        #expect(!lines.contains { $0.first == UInt8(ascii: ".") }, "a line starting with a dot")
        let parsed = try MailParser.parse(bytes)
        #expect(parsed.defects.isEmpty, "\(parsed.defects)")
        let expected = "first\n.\nthird\n.leading dot\n\nnul and escape\ntrailing   \n" + long + "\n.\n\nOpen the task"
        #expect(parsed.string("plain")?.hasPrefix(expected) == true)
        #expect(parsed.string("html")?.contains("<p>first<br>\n.<br>\nthird<br>\n.leading dot</p>") == true)
    }

    @Test func theDateIsRFC5322InUTC() {
        #expect(MailDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailDate.format(Date(timeIntervalSince1970: 1_800_000_000.9)) == "Fri, 15 Jan 2027 08:00:00 +0000")
        #expect(MailDate.format(Date(timeIntervalSince1970: 951_782_400)) == "Tue, 29 Feb 2000 00:00:00 +0000")
    }

    @Test func addressesAreCheckedStrictly() throws {
        for good in ["a@b", "first.last+tag@mail.example.com", "x_y-z!#$%&'*/=?^`{|}~@ex-ample.org"] {
            #expect(throws: Never.self) { try MailAddress(parsing: good) }
        }
        for bad in ["", "plain", "@example.com", "a@", "a..b@example.com", ".a@example.com", "a.@example.com",
                    "a b@example.com", "a@exa mple.com", "a@-example.com", "a@example-.com", "a@example..com",
                    "\"quoted\"@example.com", "a@example.com\r\nRCPT TO:<x@y>", "a@[127.0.0.1]", "<a@example.com>",
                    "jörg@example.com", "a@bücher.de", String(repeating: "a", count: 65) + "@example.com",
                    "a@" + String(repeating: "b", count: 64) + ".com", "a@" + String(repeating: "abcdefghi.", count: 26) + "com"] {
            #expect(throws: MailAddress.ParseError.self, "\(bad)") { try MailAddress(parsing: bad) }
        }
        let error = try #require(throws: MailAddress.ParseError.self) { try MailAddress(parsing: "x\r\nFAKE LOG LINE") }
        #expect(!error.description.contains("\n") && !error.description.contains("\r"))
    }

    @Test func linksMustBeHTTPSAndPlain() {
        #expect(throws: Never.self) { try MailLinkURL("https://chorus.test/u/abc?x=1&y=%20#f") }
        for bad in ["http://chorus.test/", "javascript:alert(1)", "https://", "https://a b", "https://a\"onmouseover=x",
                    "https://a>b", "https://a\r\nBcc: x", "https://ä.test/", "https://a/" + String(repeating: "x", count: 900)] {
            #expect(throws: MailLinkURL.Invalid.self, "\(bad)") { try MailLinkURL(bad) }
        }
    }
}

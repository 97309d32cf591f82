import ChorusAddresses
import Foundation

/// The parts of a `--smtp` URL, read by hand: it is short and strict, and anything a
/// general URL parser would accept beyond it (a password, a path) is refused with a reason.
struct SMTPServerURL {
    let security: SMTPSettings.Security
    let host: String
    let port: Int
    let user: String?

    init(_ text: String) throws(SMTPSettings.Invalid) {
        func invalid(_ why: String) -> SMTPSettings.Invalid {
            // The URL itself is not echoed: a mistaken one may hold a password.
            SMTPSettings.Invalid(description: "--smtp: \(why)")
        }
        guard let schemeEnd = text.range(of: "://") else {
            throw invalid("expected smtps://USER@HOST:465 or smtp://USER@HOST:587")
        }
        switch text[..<schemeEnd.lowerBound].lowercased() {
        case "smtps": security = .implicitTLS
        case "smtp": security = .startTLS
        default: throw invalid("the scheme must be smtps (TLS from the start) or smtp (which must then STARTTLS)")
        }
        var rest = String(text[schemeEnd.upperBound...])
        if rest.hasSuffix("/") { rest.removeLast() }
        guard !rest.contains(where: { "/?#".contains($0) }) else {
            throw invalid("a path, query or fragment has no meaning here")
        }
        guard rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw invalid("spaces, control characters and non-ASCII must be percent-encoded")
        }
        if let at = rest.lastIndex(of: "@") {
            let userText = String(rest[..<at])
            guard !userText.contains(":") else {
                throw invalid("the password comes from CHORUS_SMTP_PASSWORD, never the URL")
            }
            guard let decoded = Self.percentDecoded(userText), !decoded.isEmpty,
                  !decoded.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else {
                throw invalid("the user name is empty or badly percent-encoded")
            }
            user = decoded
            rest = String(rest[rest.index(after: at)...])
        } else {
            user = nil
        }
        var hostText = rest
        var portText: String?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("an IPv6 address needs its closing ]") }
            hostText = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("only :PORT may follow the host") }
                portText = String(after.dropFirst())
            }
            guard let address = IPAddress(hostText), !address.isIPv4 else { throw invalid("\"\(hostText)\" is not an IPv6 address") }
        } else {
            if let colon = rest.lastIndex(of: ":") {
                hostText = String(rest[..<colon])
                portText = String(rest[rest.index(after: colon)...])
            }
            guard IPAddress(hostText) != nil || MailAddress.isDomain(hostText) else {
                throw invalid("\"\(MailAddress.shown(hostText))\" is not a host name or address")
            }
        }
        host = hostText.lowercased()
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portText), (1...65535).contains(number) else {
                throw invalid("the port must be a number from 1 to 65535")
            }
            port = number
        } else {
            port = security == .implicitTLS ? 465 : 587
        }
    }

    /// `%XX` sequences decoded; nil when one is broken or the result is not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

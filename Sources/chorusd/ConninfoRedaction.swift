import Foundation

/// A PostgreSQL connection string as chorusd may show it: the password (in a URI's
/// `user:password@`, a `password=` parameter, or a `password=` key) replaced by `****`.
/// Error messages are scrubbed of the password too: libpq quotes bits of a string it
/// cannot parse, and those bits may be the password.
enum ConninfoRedaction {
    static let mask = "****"

    /// `conninfo` with every password in it masked.
    static func redacted(_ conninfo: String) -> String {
        var text = conninfo
        // From the end, so earlier ranges stay valid.
        for range in passwordRanges(in: conninfo).sorted(by: { $0.lowerBound > $1.lowerBound }) {
            text.replaceSubrange(range, with: mask)
        }
        return text
    }

    /// `message` with the passwords of `conninfo` (as written and percent-decoded) and of
    /// `PGPASSWORD` replaced by the mask.
    static func scrubbed(_ message: String, conninfo: String,
                         environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var secrets = passwordRanges(in: conninfo).map { String(conninfo[$0]) }
        secrets += secrets.compactMap { $0.removingPercentEncoding }
        if let variable = environment["PGPASSWORD"] { secrets.append(variable) }
        var text = message
        // Longest first, so a password that contains another is masked whole.
        for secret in Set(secrets).sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: mask)
        }
        return text
    }

    /// Where the password values sit in `conninfo`.
    static func passwordRanges(in conninfo: String) -> [Range<String.Index>] {
        if conninfo.hasPrefix("postgresql://") || conninfo.hasPrefix("postgres://") {
            return uriPasswordRanges(conninfo)
        }
        return keywordPasswordRanges(conninfo)
    }

    /// `postgresql://user:password@host/db?password=...`. libpq takes the user part up to
    /// the first `@` before the first `/`, so a password may hold `?` or `:`. Here it ends
    /// at the last `@` before the first `/`, or, with none there, the last `@` at all:
    /// more than libpq reads when a password holds an unencoded `@` or `/`, but masking
    /// too much is harmless, showing a password is not.
    private static func uriPasswordRanges(_ uri: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        guard let schemeEnd = uri.range(of: "://")?.upperBound else { return [] }
        let rest = uri[schemeEnd...]
        let authority = rest[..<(rest.firstIndex(of: "/") ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") ?? rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            let start = rest.index(after: colon)
            if start < at { ranges.append(start..<at) }
        }
        if let question = rest.firstIndex(of: "?") {
            var cursor = rest.index(after: question)
            while cursor < rest.endIndex {
                let end = rest[cursor...].firstIndex(of: "&") ?? rest.endIndex
                let parameter = rest[cursor..<end]
                if let equals = parameter.firstIndex(of: "="), parameter[..<equals] == "password" {
                    let start = parameter.index(after: equals)
                    if start < end { ranges.append(start..<end) }
                }
                cursor = end < rest.endIndex ? rest.index(after: end) : end
            }
        }
        return ranges
    }

    /// `key = value` pairs, a value bare or in single quotes with backslash escapes, as
    /// libpq reads them.
    private static func keywordPasswordRanges(_ text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var cursor = text.startIndex
        func skipSpaces() {
            while cursor < text.endIndex, text[cursor].isWhitespace { cursor = text.index(after: cursor) }
        }
        while true {
            skipSpaces()
            guard cursor < text.endIndex else { break }
            let keyStart = cursor
            while cursor < text.endIndex, text[cursor] != "=", !text[cursor].isWhitespace { cursor = text.index(after: cursor) }
            let key = text[keyStart..<cursor]
            skipSpaces()
            // A word without `=`: libpq refuses the string; read on for passwords after it.
            guard cursor < text.endIndex, text[cursor] == "=" else { continue }
            cursor = text.index(after: cursor)
            skipSpaces()
            let quoted = cursor < text.endIndex && text[cursor] == "'"
            if quoted { cursor = text.index(after: cursor) }
            let valueStart = cursor
            while cursor < text.endIndex {
                let character = text[cursor]
                if character == "\\" {
                    cursor = text.index(after: cursor)
                    if cursor < text.endIndex { cursor = text.index(after: cursor) }
                    continue
                }
                if quoted ? character == "'" : character.isWhitespace { break }
                cursor = text.index(after: cursor)
            }
            if key == "password", valueStart < cursor { ranges.append(valueStart..<cursor) }
            if quoted, cursor < text.endIndex { cursor = text.index(after: cursor) }
        }
        return ranges
    }
}

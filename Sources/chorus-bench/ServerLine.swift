import Foundation

/// One line from the server sorted by what a client must do with it: match a reply to
/// its request by tag, hand an event on, or skip a text-mode body line. Works on the raw
/// bytes, so the hot path never builds a String.
enum ServerLine {
    case reply(ok: Bool, tag: UInt64?)
    case event
    case body

    private static let jsonOK = Array(#"{"type":"ok""#.utf8)
    private static let jsonError = Array(#"{"type":"error""#.utf8)
    private static let jsonEvent = Array(#"{"type":"event""#.utf8)
    private static let tagKey = Array(#","tag":""#.utf8)

    static func classify(_ line: UnsafeRawBufferPointer) -> ServerLine {
        guard let first = line.first else { return .body }
        switch first {
        case UInt8(ascii: "{"):
            if line.hasPrefix(jsonEvent) { return .event }
            if line.hasPrefix(jsonOK) { return .reply(ok: true, tag: jsonTag(line, after: jsonOK.count)) }
            if line.hasPrefix(jsonError) { return .reply(ok: false, tag: jsonTag(line, after: jsonError.count)) }
            return .body
        case UInt8(ascii: "*"):
            return .event
        case UInt8(ascii: "@"):
            // "@12 OK ..." or "@12 ERR ..."; "@12   body" is a listing line.
            var index = 1
            let tag = decimal(line, from: &index)
            guard index < line.count, line[index] == UInt8(ascii: " ") else { return .body }
            let rest = UnsafeRawBufferPointer(rebasing: line[(index + 1)...])
            if rest.hasPrefix(okWord) { return .reply(ok: true, tag: tag) }
            if rest.hasPrefix(errWord) { return .reply(ok: false, tag: tag) }
            return .body
        default:
            if line.hasPrefix(okWord) { return .reply(ok: true, tag: nil) }
            if line.hasPrefix(errWord) { return .reply(ok: false, tag: nil) }
            return .body
        }
    }

    private static let okWord = Array("OK".utf8)
    private static let errWord = Array("ERR ".utf8)

    private static func jsonTag(_ line: UnsafeRawBufferPointer, after offset: Int) -> UInt64? {
        let rest = UnsafeRawBufferPointer(rebasing: line[offset...])
        guard rest.hasPrefix(tagKey) else { return nil }
        var index = offset + tagKey.count
        return decimal(line, from: &index)
    }

    /// The unsigned decimal number at `index` (advanced past it), nil when there is none.
    static func decimal(_ bytes: UnsafeRawBufferPointer, from index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        let start = index
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        return index > start ? value : nil
    }
}

extension UnsafeRawBufferPointer {
    func hasPrefix(_ prefix: [UInt8]) -> Bool {
        guard count >= prefix.count, let base = baseAddress else { return false }
        return prefix.withUnsafeBytes { memcmp(base, $0.baseAddress!, prefix.count) == 0 }
    }
}

import ChorusProtocol
import Foundation

/// One line from the server, sorted the way CONTRACT §3 promises: an event, a body line of
/// a reply, or a reply's final line, with its tag. Both modes are recognised by shape (a
/// JSON object with a `type`, else text), so a person who types `MODE json` needs no
/// bookkeeping here.
public struct ServerLine {
    public enum Kind: Equatable {
        case event, body, ok, error
    }

    public let raw: String
    public let kind: Kind
    public let tag: String?
    /// Text mode: the line after `@TAG `. JSON: the raw line.
    public let untagged: String
    /// The decoded object of a JSON line.
    public let json: [String: Any]?

    public var isFinal: Bool { kind == .ok || kind == .error }

    public init(_ raw: String) {
        self.raw = raw
        if raw.hasPrefix("{"), let object = Self.decode(raw), let type = object["type"] as? String {
            json = object
            tag = object["tag"] as? String
            untagged = raw
            switch type {
            case "event": kind = .event
            case "error": kind = .error
            default: kind = .ok
            }
            return
        }
        json = nil
        var rest = Substring(raw)
        var tag: String?
        if rest.hasPrefix("@"), let space = rest.firstIndex(of: " ") {
            tag = String(rest[rest.index(after: rest.startIndex)..<space])
            rest = rest[rest.index(after: space)...]
        }
        self.tag = tag
        untagged = String(rest)
        if rest.hasPrefix("* ") || rest == "*" {
            kind = .event
        } else if rest == "OK" || rest.hasPrefix("OK ") {
            kind = .ok
        } else if rest.hasPrefix("ERR ") {
            kind = .error
        } else {
            kind = .body
        }
    }

    /// A stored event's id (`"id":412`, or `... [#412]` at the end of a text line); nil
    /// for other lines and for events that are not stored (`bye`).
    public var eventID: Int64? {
        guard kind == .event else { return nil }
        if let json { return (json["id"] as? Int).map(Int64.init) }
        return Event.id(ofTextLine: untagged)
    }

    /// The error's code (`ERR 401 ...` or `"code":401`); nil for other lines.
    public var errorCode: Int? {
        guard kind == .error else { return nil }
        if let json { return json["code"] as? Int }
        return untagged.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The error's message without the code, for standard error: safe to show
    /// (`TerminalSafeText`), since a JSON message decodes to whatever the server escaped.
    public var errorMessage: String {
        let words = untagged.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let message = json.map { $0["message"] as? String ?? raw } ?? (words.count == 3 ? String(words[2]) : untagged)
        return TerminalSafeText.line(message)
    }

    static func decode(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }
}

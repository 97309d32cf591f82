import Foundation

/// Something that happened, told to sessions between replies (CONTRACT §6).
public struct Event: Sendable {
    public let name: String
    /// The event log id; nil for events that are not stored (`bye`).
    public let id: Int64?
    public let at: Date
    public let by: String?
    public let payload: [(String, JSONValue)]
    /// What a person reads after `* `.
    public let text: String

    public init(name: String, id: Int64?, at: Date, by: String?, payload: [(String, JSONValue)], text: String) {
        self.name = name
        self.id = id
        self.at = at
        self.by = by
        self.payload = payload
        self.text = text
    }

    /// Renders both forms once; every recipient gets the same bytes.
    public func rendered() -> RenderedEvent {
        var text: [UInt8] = []
        TextLine.append(Self.textLine(self.text, id: id), to: &text)
        var fields: [(String, JSONValue)] = [
            ("type", .string("event")),
            ("event", .string(name)),
            ("id", id.map { .int($0) } ?? .null),
            ("at", .string(Timestamp.rfc3339(at))),
            ("by", .string(by)),
        ]
        fields.append(contentsOf: payload)
        var json: [UInt8] = []
        JSONValue.encodeFields(fields, into: &json)
        json.append(contentsOf: [0x0d, 0x0a])
        return RenderedEvent(text: text, json: json)
    }
}

extension Event {
    /// A text-mode event line: `* TEXT`, and for a stored event ` [#ID]` after it, the id
    /// `SYNC` takes. Last on the line, after the sanitised text, so no text can fake it.
    public static func textLine(_ text: String, id: Int64?) -> String {
        let line = "* " + TextLine.sanitized(text)
        guard let id else { return line }
        return line + " [#\(id)]"
    }

    /// The id at the end of a text-mode event line (`... [#412]`); nil for an event that
    /// is not stored (the greeting, `bye`).
    public static func id(ofTextLine line: some StringProtocol) -> Int64? {
        guard line.hasSuffix("]"), let open = line.range(of: " [#", options: .backwards) else { return nil }
        let digits = line[open.upperBound..<line.index(before: line.endIndex)]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(digits)
    }

    /// An event's JSON object from its payload fields already encoded as one object (as
    /// the log stores them): the head fields, then the payload's spliced in. The same
    /// bytes `rendered()` makes, without encoding the payload a second time.
    static func json(id: Int64?, name: String, at: String, by: String?, payloadJSON: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payloadJSON.count + 96)
        JSONValue.encodeFields([("type", .string("event")), ("event", .string(name)), ("id", id.map { .int($0) } ?? .null),
                                ("at", .string(at)), ("by", .string(by))], into: &out)
        out.removeLast() // the closing brace: the payload's fields follow
        if payloadJSON.count > 2 {
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: payloadJSON[1..<(payloadJSON.count - 1)]) // without its braces
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The JSON object of an event read back from the log: the same bytes it had when first sent.
    public static func storedJSON(id: Int64, name: String, at: String, by: String?, payload: String) -> String {
        String(decoding: json(id: id, name: name, at: at, by: by, payloadJSON: Array(payload.utf8)), as: UTF8.self)
    }

    /// Both forms of an event whose payload is already encoded: one just stored, or one
    /// read back from the log. A text with times in it (`shown` differs from `text`, which
    /// holds ChorusRendering's `TimeMarks`) is shown as `shown`, the server's zone, and
    /// keeps `text` for readers in other zones (`RenderedEvent.textLine(shown:)`).
    public static func rendering(id: Int64?, name: String, at: String, by: String?, payloadJSON: [UInt8], text: String,
                                 shown: String? = nil) -> RenderedEvent {
        var textBytes: [UInt8] = []
        TextLine.append(textLine(shown ?? text, id: id), to: &textBytes)
        var json = json(id: id, name: name, at: at, by: by, payloadJSON: payloadJSON)
        json.append(contentsOf: [0x0d, 0x0a])
        let marked = shown.flatMap { $0 == text ? nil : RenderedEvent.MarkedText(text: text, id: id) }
        return RenderedEvent(text: textBytes, json: json, marked: marked)
    }

    /// Both forms of an event read back from the log (`shown`: as in `rendering`).
    public static func storedRendering(id: Int64, name: String, at: String, by: String?, payload: String, text: String,
                                       shown: String? = nil) -> RenderedEvent {
        rendering(id: id, name: name, at: at, by: by, payloadJSON: Array(payload.utf8), text: text, shown: shown)
    }
}

/// How a session takes its events: text lines, JSON lines, or JSON objects in WebSocket
/// text frames (CONTRACT §9).
public enum EventFormat: Sendable, Equatable {
    case text, json, webSocket
}

/// An event's wire bytes in every format, rendered once and shared by reference among all
/// its recipients.
public final class RenderedEvent: Sendable {
    public let text: [UInt8]
    public let json: [UInt8]
    /// `json` as one WebSocket text frame: a few bytes of frame head around the same object.
    public let webSocket: [UInt8]
    /// Set only for a text with times in it: `text` shows them in the server's zone, and
    /// this remakes the line for a reader in another (`textLine(shown:)`). JSON has no
    /// text, so its bytes are everyone's.
    public let marked: MarkedText?

    /// An event's text as stored, with its time marks, and the id its line ends with.
    public struct MarkedText: Sendable {
        public let text: String
        public let id: Int64?
    }

    public init(text: [UInt8], json: [UInt8], marked: MarkedText? = nil) {
        self.text = text
        self.json = json
        self.webSocket = WebSocketFrameHeader.textFrame(ofLine: json)
        self.marked = marked
    }

    /// The text-mode line of this event with its text shown as `shown` (the marked text
    /// resolved for one reader's zone).
    public func textLine(shown: String) -> [UInt8] {
        var line: [UInt8] = []
        TextLine.append(Event.textLine(shown, id: marked?.id), to: &line)
        return line
    }

    public func bytes(for format: EventFormat) -> [UInt8] {
        switch format {
        case .text: text
        case .json: json
        case .webSocket: webSocket
        }
    }
}

/// The final answer to one request, in a form both output modes can render: a one-line
/// summary and optional body lines for people, ordered fields for bots.
public struct Reply: Sendable {
    public enum Status: Sendable {
        case ok(summary: String)
        case error(ChorusError)
    }

    public var status: Status
    /// Text-mode lines shown before the final `OK` (a listing). JSON mode never sends them.
    public var body: [String]
    /// JSON-mode result fields, after `type` and `tag`.
    public var fields: [(String, JSONValue)]

    public init(status: Status, body: [String] = [], fields: [(String, JSONValue)] = []) {
        self.status = status
        self.body = body
        self.fields = fields
    }

    public static func ok(_ summary: String = "", body: [String] = [], _ fields: [(String, JSONValue)] = []) -> Reply {
        Reply(status: .ok(summary: summary), body: body, fields: fields)
    }

    public static func error(_ error: ChorusError) -> Reply {
        Reply(status: .error(error))
    }

    public var isOK: Bool {
        if case .ok = status { return true }
        return false
    }

    /// The whole reply as the bytes to send, each line ended with CRLF.
    public func rendered(mode: OutputMode, tag: String?) -> [UInt8] {
        var out: [UInt8] = []
        switch mode {
        case .text: renderText(tag: tag, into: &out)
        case .json: renderJSON(tag: tag, into: &out)
        }
        return out
    }

    private func renderText(tag: String?, into out: inout [UInt8]) {
        let prefix = tag.map { "@\($0) " } ?? ""
        for line in body {
            var safe = TextLine.sanitized(line)
            // A body line must never look like a final line or an event.
            // Compared as bytes: a combining mark after "OK" must not hide the prefix.
            if safe.utf8.starts(with: "OK".utf8) || safe.utf8.starts(with: "ERR".utf8) || safe.utf8.starts(with: "*".utf8) {
                safe = "  " + safe
            }
            TextLine.append(prefix + safe, to: &out)
        }
        switch status {
        case .ok(let summary):
            TextLine.append(prefix + (summary.isEmpty ? "OK" : "OK " + TextLine.sanitized(summary)), to: &out)
        case .error(let error):
            TextLine.append(prefix + "ERR \(error.code) " + TextLine.sanitized(error.message), to: &out)
        }
    }

    private func renderJSON(tag: String?, into out: inout [UInt8]) {
        var all: [(String, JSONValue)]
        switch status {
        case .ok:
            all = [("type", .string("ok"))]
            if let tag { all.append(("tag", .string(tag))) }
            all.append(contentsOf: fields)
        case .error(let error):
            all = [("type", .string("error"))]
            if let tag { all.append(("tag", .string(tag))) }
            all.append(("code", .int(Int64(error.code))))
            all.append(("message", .string(error.message)))
        }
        JSONValue.encodeFields(all, into: &out)
        out.append(contentsOf: [0x0d, 0x0a])
    }
}

/// Text-mode line hygiene shared by replies and events.
public enum TextLine {
    /// Control characters from user data (a `\n` in a quoted title, an escape sequence)
    /// would break the line structure or someone's terminal: show them as visible escapes.
    public static func sanitized(_ line: String) -> String {
        // C1 controls (U+0080–U+009F) are encoded with a 0xC2 lead byte.
        guard line.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == 0xc2 }) else { return line }
        var result = ""
        for scalar in line.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += " "
            case _ where scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value): result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    public static func append(_ line: String, to out: inout [UInt8]) {
        out.append(contentsOf: line.utf8)
        out.append(contentsOf: [0x0d, 0x0a])
    }
}

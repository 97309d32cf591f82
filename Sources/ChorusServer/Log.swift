import ChorusLocking
import ChorusNet
import ChorusProtocol
import Foundation

/// One logfmt line per thing worth knowing, on standard error (CONTRACT §12):
/// `ts=2026-12-01T23:39:06.123Z level=info node=a msg=login user=ann addr=192.0.2.7`.
/// Call sites name the event and its facts, `Log.info("login", ["user": name, "addr": address])`;
/// the quoting is done here, once. Never pass passwords or tokens. `LogWriter` writes it
/// from its own thread: a standard error that is closed or full costs the line (counted
/// in ADMIN STATS), never the server.
public enum Log {
    public enum Level: String, Sendable {
        case info, warn, error
    }

    /// A line's fields, in the order written; any value is written as its description.
    public typealias Fields = KeyValuePairs<String, Any>

    /// The cluster node's name, set once at start with `--postgres`; nil writes no `node=`.
    private static let nodeName = Locked<String?>(nil)

    public static func setNode(_ name: String?) {
        nodeName.withLock { $0 = name.flatMap { $0.isEmpty ? nil : $0 } }
    }

    public static func info(_ message: String, _ fields: Fields = [:]) {
        write(.info, message, fields)
    }

    public static func warn(_ message: String, _ fields: Fields = [:]) {
        write(.warn, message, fields)
    }

    public static func error(_ message: String, _ fields: Fields = [:]) {
        write(.error, message, fields)
    }

    private static func write(_ level: Level, _ message: String, _ fields: Fields) {
        let node = nodeName.withLock { $0 }
        LogWriter.standardError.write(line(level, message, fields.map { ($0.key, "\($0.value)") }, node: node, at: Date()))
    }

    /// The whole line, without its newline: what `write` queues, and what tests check.
    public static func line(_ level: Level, _ message: String, _ fields: [(String, String)], node: String?, at date: Date) -> String {
        var pairs = [("ts", timestamp(date)), ("level", level.rawValue)]
        if let node { pairs.append(("node", node)) }
        pairs.append(("msg", message))
        pairs += fields
        return pairs.map { "\(key($0.0))=\(value($0.1))" }.joined(separator: " ")
    }

    /// RFC 3339 in UTC with milliseconds: `2026-12-01T23:39:06.123Z`.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = Date(timeIntervalSince1970: TimeInterval(milliseconds.quotientAndRemainder(dividingBy: 1000).quotient))
        let whole = Timestamp.rfc3339(seconds)  // "…T23:39:06Z"
        let fraction = Int(((milliseconds % 1000) + 1000) % 1000)
        let digits = String(fraction + 1000).dropFirst()
        return whole.dropLast() + "." + digits + "Z"
    }

    /// A key is a code literal; anything but a plain word would break the line, so it
    /// becomes `_`.
    static func key(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "." || $0 == "-") }
        return plain ? text : "_"
    }

    /// Bare when it is one plain word; otherwise quoted, with `"` and `\` escaped and every
    /// control or line-breaking character written as an escape, so one event stays one
    /// line whatever a name, an address or an engine's message holds.
    static func value(_ text: String) -> String {
        let bare = !text.isEmpty && text.unicodeScalars.allSatisfy { !needsQuotes($0) }
        if bare { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if isControl(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func needsQuotes(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\"" || scalar == "=" || scalar == "\\" || isControl(scalar)
            || scalar.properties.isWhitespace
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Lines that could not be written: the queue was full or the descriptor refused them.
    /// Standard error's log lines and standard output's (the certificate and `listening
    /// on` lines) both count.
    public static var droppedLines: Int {
        LogWriter.standardError.droppedLines + LogWriter.standardOutput.droppedLines
    }
}

/// A JSON value with object keys kept in the order they were written, so replies read the
/// same every time and bots can diff them. Not `indirect`: arrays already hold nested
/// values out of line, and an indirect case would put every scalar in a heap box of its own.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// Already-encoded JSON, passed through (events read back from the log).
    case raw(String)

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.raw(a), .raw(b)): return a == b
        default: return false
        }
    }

    public static func string(_ value: String?) -> JSONValue {
        value.map { .string($0) } ?? .null
    }

    public static func int(_ value: Int) -> JSONValue { .int(Int64(value)) }

    /// Compact UTF-8 encoding, appended to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            if value < 0 { out.append(UInt8(ascii: "-")) }
            DecimalBytes.append(value.magnitude, to: &out)
        case .string(let value): JSONValue.encodeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.encode(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            JSONValue.encodeFields(fields, into: &out)
        case .raw(let text):
            out.append(contentsOf: text.utf8)
        }
    }

    public var encoded: String {
        var out: [UInt8] = []
        encode(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `{"k":v,...}` for an ordered list of fields.
    public static func encodeFields(_ fields: [(String, JSONValue)], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for (index, field) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            encodeString(field.0, into: &out)
            out.append(UInt8(ascii: ":"))
            field.1.encode(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Escapes quotes, backslashes and every control character; other UTF-8 passes through.
    public static func encodeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            // Most text needs no escape: copy it in runs, not byte by byte.
            var runStart = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7f else { continue }
                if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
                appendEscape(for: byte, into: &out)
                runStart = index + 1
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(for byte: UInt8, into out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
        case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
        case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
        case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: "\\u00".utf8)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
    }
}

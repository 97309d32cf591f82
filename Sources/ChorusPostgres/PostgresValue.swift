/// A parameter of a query, sent in PostgreSQL's text format: the server parses it as the
/// type the statement gives the parameter (cast with `$1::bigint` where it cannot infer).
/// Values are never spliced into SQL.
public enum PostgresValue: Sendable, Equatable {
    case int(Int64)
    case text(String)
    case double(Double)
    case bool(Bool)
    case null

    /// The text PostgreSQL reads this value from; nil for NULL.
    var textFormat: String? {
        switch self {
        case .int(let value): String(value)
        case .text(let value): value
        case .double(let value): Self.text(of: value)
        case .bool(let value): value ? "true" : "false"
        case .null: nil
        }
    }

    /// Swift writes the shortest text that reads back as the same double; only the
    /// non-finite values are spelled differently from PostgreSQL's float8 input.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }
}

extension PostgresValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension PostgresValue {
    /// A `bigint[]` parameter (`$n::bigint[]`), in PostgreSQL's array text format.
    static func bigintArray(_ values: [Int64]) -> PostgresValue {
        .text("{" + values.map(String.init).joined(separator: ",") + "}")
    }
}

extension PostgresValue {
    /// An array parameter (`$n::text[]`, `$n::bigint[]`, ...) from its elements' text
    /// forms, nil for NULL: each element quoted, so any text reads back as it was.
    static func array(_ elements: [String?]) -> PostgresValue {
        var literal = "{"
        literal.reserveCapacity(elements.count * 8 + 2)
        for (index, element) in elements.enumerated() {
            if index > 0 { literal.append(",") }
            guard let element else {
                literal.append("NULL")
                continue
            }
            literal.append("\"")
            if element.utf8.contains(where: { $0 == 0x22 || $0 == 0x5c }) {
                for character in element.unicodeScalars {
                    if character == "\"" || character == "\\" { literal.append("\\") }
                    literal.unicodeScalars.append(character)
                }
            } else {
                literal.append(element)
            }
            literal.append("\"")
        }
        literal.append("}")
        return .text(literal)
    }

    static func array(_ elements: [String]) -> PostgresValue { array(elements.map(Optional.some)) }
}

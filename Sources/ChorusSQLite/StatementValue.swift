/// A Swift value that can be bound to a statement parameter.
///
/// Lets call sites write `.init(name)` or `.init(optionalNote)` instead of choosing the
/// SQLite storage class by hand; literals work directly (`stmt.run("x", 1, nil)`).
public protocol StatementValue {
    var statementValue: Statement.Value { get }
}

extension Statement.Value: StatementValue {
    public var statementValue: Statement.Value { self }

    public init(_ value: some StatementValue) {
        self = value.statementValue
    }
}

extension Int: StatementValue {
    public var statementValue: Statement.Value { .integer(Int64(self)) }
}

extension Int64: StatementValue {
    public var statementValue: Statement.Value { .integer(self) }
}

extension Int32: StatementValue {
    public var statementValue: Statement.Value { .integer(Int64(self)) }
}

extension Double: StatementValue {
    public var statementValue: Statement.Value { .real(self) }
}

extension String: StatementValue {
    public var statementValue: Statement.Value { .text(self) }
}

/// Stored as 0 or 1, matching the schema's CHECK constraints.
extension Bool: StatementValue {
    public var statementValue: Statement.Value { .integer(self ? 1 : 0) }
}

extension Array: StatementValue where Element == UInt8 {
    public var statementValue: Statement.Value { .blob(self) }
}

extension Optional: StatementValue where Wrapped: StatementValue {
    public var statementValue: Statement.Value { self?.statementValue ?? .null }
}

extension Statement.Value: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension Statement.Value: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension Statement.Value: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension Statement.Value: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension Statement.Value: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

import CPostgres

/// The rows one statement returned, in text format, freed when the last reference goes.
/// Belongs to the connection's thread, like the connection.
public final class PostgresResult {
    private let handle: OpaquePointer

    /// Takes ownership of a result libpq reported as a success.
    init(taking handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    public var rowCount: Int { Int(PQntuples(handle)) }
    public var columnCount: Int { Int(PQnfields(handle)) }
    /// Rows an INSERT, UPDATE or DELETE touched; 0 for other statements.
    public var affectedRows: Int64 { Int64(String(cString: PQcmdTuples(handle))) ?? 0 }

    public func row(_ index: Int) -> PostgresRow {
        precondition(index >= 0 && index < rowCount, "row \(index) of \(rowCount)")
        return PostgresRow(result: self, index: Int32(index))
    }

    public var rows: [PostgresRow] { (0..<rowCount).map(row) }

    /// The first row of a statement that should return one (a scalar, a one-row table):
    /// none is a failure of the database's state, thrown, never a trap.
    public func firstRow() throws -> PostgresRow {
        guard rowCount > 0 else {
            throw PostgresError(sqlState: nil, kind: .failed, message: "expected a row, the statement returned none")
        }
        return row(0)
    }

    public func columnName(_ column: Int) -> String { String(cString: PQfname(handle, Int32(column))) }

    func isNull(row: Int32, column: Int32) -> Bool { PQgetisnull(handle, row, column) == 1 }

    /// The value's bytes as text; its length comes from libpq, so embedded bytes stay whole.
    func text(row: Int32, column: Int32) -> String? {
        precondition(column >= 0 && Int(column) < columnCount, "column \(column) of \(columnCount)")
        if isNull(row: row, column: column) { return nil }
        guard let bytes = PQgetvalue(handle, row, column) else { return nil }
        let count = Int(PQgetlength(handle, row, column))
        return bytes.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }
}

/// One row of a result, read by zero-based column. Every read gives nil for NULL, and
/// throws when the column's text is not of the asked type (a query that does not match
/// its reader: a bug, so `failed`).
public struct PostgresRow {
    let result: PostgresResult
    let index: Int32

    public func isNull(_ column: Int) -> Bool { result.isNull(row: index, column: Int32(column)) }

    public func string(_ column: Int) -> String? { result.text(row: index, column: Int32(column)) }

    public func int64(_ column: Int) throws -> Int64? {
        try read(column, as: "bigint") { Int64($0) }
    }

    /// float8 text: PostgreSQL 12 and later send the shortest exact digits, and
    /// "Infinity", "-Infinity", "NaN", all of which Swift reads.
    public func double(_ column: Int) throws -> Double? {
        try read(column, as: "double precision") { Double($0) }
    }

    public func bool(_ column: Int) throws -> Bool? {
        try read(column, as: "boolean") { text in
            switch text {
            case "t": true
            case "f": false
            default: nil
            }
        }
    }

    private func read<T>(_ column: Int, as type: String, _ parse: (String) -> T?) throws -> T? {
        guard let text = string(column) else { return nil }
        guard let value = parse(text) else {
            throw PostgresError(sqlState: nil, kind: .failed,
                                message: "column \(column) (\(result.columnName(column))) holds \"\(text)\", not a \(type)")
        }
        return value
    }
}

import CSQLite
import ChorusStore

/// A prepared statement. Values are only ever bound, never pasted into SQL.
///
/// Statements come from `Database.prepare`, which caches them per SQL text; use one
/// right away rather than holding it across other database calls, since the next
/// `prepare` of the same text hands out the same object again.
public final class Statement {
    /// One SQLite value, as bound to a parameter or read from a column.
    public enum Value: Sendable, Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    public let sql: String
    /// Nil once finalized (when the database closes), so late use throws instead of crashing.
    private(set) var handle: OpaquePointer?

    init(sql: String, handle: OpaquePointer) {
        self.sql = sql
        self.handle = handle
    }

    deinit { finalize() }

    func finalize() {
        if let handle {
            sqlite3_finalize(handle)
            self.handle = nil
        }
    }

    /// Whether the statement is mid-way through its rows (stepped but not reset).
    var isBusy: Bool {
        guard let handle else { return false }
        return sqlite3_stmt_busy(handle) != 0
    }

    /// Rewinds and forgets earlier bindings, so a reused statement never sees stale values.
    func reset() {
        guard let handle else { return }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func liveHandle() throws -> OpaquePointer {
        guard let handle else {
            throw StoreError(code: SQLITE_MISUSE, message: "statement used after its database closed: \(sql)")
        }
        return handle
    }

    private func failure(_ code: Int32, _ doing: String) -> StoreError {
        StoreError(code: code, connection: handle.flatMap { sqlite3_db_handle($0) }, doing: "\(doing) (\(sql))")
    }

    /// Binds positional parameters ?1...?n after a reset; the count must match exactly,
    /// because a missing value would otherwise silently become NULL.
    @discardableResult
    public func bind(_ values: [Value]) throws -> Statement {
        let handle = try liveHandle()
        reset()
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StoreError(code: SQLITE_RANGE, message: "statement expects \(expected) values, got \(values.count) (\(sql))")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc = try bind(value, at: index, on: handle)
            guard rc == SQLITE_OK else { throw failure(rc, "binding value \(index)") }
        }
        return self
    }

    @discardableResult
    public func bind(_ values: Value...) throws -> Statement {
        try bind(values)
    }

    private func bind(_ value: Value, at index: Int32, on handle: OpaquePointer) throws -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(handle, index)
        case .integer(let number):
            return sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            return sqlite3_bind_double(handle, index, number)
        case .text(let text):
            var text = text
            return try text.withUTF8 { bytes in
                guard let length = Int32(exactly: bytes.count) else {
                    throw StoreError(code: SQLITE_TOOBIG, message: "text value \(index) is too long (\(sql))")
                }
                // A nil pointer would bind NULL, so an empty string needs a real (empty) C string.
                guard let base = bytes.baseAddress, length > 0 else {
                    return csqlite_bind_text(handle, index, "", 0)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    csqlite_bind_text(handle, index, $0, length)
                }
            }
        case .blob(let bytes):
            guard let length = Int32(exactly: bytes.count) else {
                throw StoreError(code: SQLITE_TOOBIG, message: "blob value \(index) is too long (\(sql))")
            }
            // Same reason as for text: an empty blob must not turn into NULL.
            if length == 0 { return sqlite3_bind_zeroblob(handle, index, 0) }
            return bytes.withUnsafeBytes { csqlite_bind_blob(handle, index, $0.baseAddress, length) }
        }
    }

    /// Advances one row. True means `currentRow` holds a row; false means done.
    public func step() throws -> Bool {
        let handle = try liveHandle()
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        case let rc:
            let error = failure(rc, "running statement")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// The row the last successful `step()` produced; valid until the next step or reset.
    public var currentRow: Row {
        get throws { Row(handle: try liveHandle()) }
    }

    /// Binds and steps to completion, for statements that return no rows.
    public func run(_ values: Value...) throws {
        try run(values)
    }

    public func run(_ values: [Value]) throws {
        let handle = try bind(values).liveHandle()
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds, then maps every row. The statement is reset afterwards so it holds no read lock.
    public func rows<T>(_ values: Value..., map: (Row) throws -> T) throws -> [T] {
        try rows(values, map: map)
    }

    public func rows<T>(_ values: [Value], map: (Row) throws -> T) throws -> [T] {
        let handle = try bind(values).liveHandle()
        defer { sqlite3_reset(handle) }
        var result: [T] = []
        while try step() {
            result.append(try map(Row(handle: handle)))
        }
        return result
    }

    /// Binds, then maps the first row if there is one; any further rows are ignored.
    public func row<T>(_ values: Value..., map: (Row) throws -> T) throws -> T? {
        let handle = try bind(values).liveHandle()
        defer { sqlite3_reset(handle) }
        return try step() ? map(Row(handle: handle)) : nil
    }
}

/// Bound to one connection's thread, like the connection itself.
@available(*, unavailable)
extension Statement: Sendable {}

import CSQLite

/// One result row, read by zero-based column index.
///
/// Only valid inside the `map` closure (or until the next `step()`): it reads straight
/// from SQLite's buffers, which is why it is never Sendable and should not be stored.
public struct Row {
    let handle: OpaquePointer

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// NULL reads as 0, as SQLite itself converts it.
    public func int(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    public func optionalInt(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int(column)
    }

    /// Stored as 0 or 1 (the schema's CHECK constraints keep it that way).
    public func bool(_ column: Int32) -> Bool {
        int(column) != 0
    }

    public func double(_ column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }

    /// NULL reads as the empty string; use `optionalText` where NULL means something.
    public func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        // Ask for the length after the text pointer, as SQLite documents; this also
        // keeps text with embedded NUL bytes whole.
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    public func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// The column as whatever type SQLite holds it in.
    public func value(_ column: Int32) -> Statement.Value {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(int(column))
        case SQLITE_FLOAT: .real(double(column))
        case SQLITE_TEXT: .text(text(column))
        case SQLITE_BLOB: .blob(blob(column))
        default: .null
        }
    }
}

@available(*, unavailable)
extension Row: Sendable {}

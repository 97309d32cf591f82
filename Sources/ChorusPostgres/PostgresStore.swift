import ChorusStore

/// PostgreSQL's `Store`: one unit of work over one connection, run by `PostgresQueue`
/// inside its batch transaction (READ COMMITTED). The same results and errors as SQLite's
/// `Database`; the shared store tests hold both to that.
///
/// Failures leave here as `StoreError`s. What only the queue decides from (a deadlock to
/// rerun, whether the job wrote anything) is noted on the side (`rerunCause`, `writes`).
///
/// No member cache: another node may change a room's members at any moment, and the
/// list is one index range (`members` primary key).
public final class PostgresStore: Store {
    public let connection: PostgresConnection
    /// The node whose queue runs this store (`--node`), written with each event row.
    var node = ""
    /// Statements run that may have changed rows: a job that failed without moving this
    /// left nothing to undo (`PostgresQueue` then needs no savepoints).
    var writes = 0
    /// A deadlock (40P01) or serialization failure (40001) a statement hit: the batch is
    /// rolled back and run again.
    var rerunCause: PostgresError?
    /// What this batch keeps in memory: its events waiting for ids (`EventCounter`), what
    /// it read under its locks. Reset by each attempt.
    var batch = BatchState()

    /// Takes a connected connection and brings its database's schema up to date.
    public init(connection: PostgresConnection) throws {
        self.connection = connection
        try PostgresSchema.migrate(connection)
    }

    /// Reads: rows mapped one by one.
    func rows<T>(_ sql: String, _ parameters: [PostgresValue] = [], map: (PostgresRow) throws -> T) throws -> [T] {
        let result = try run(sql, parameters)
        return try result.rows.map(map)
    }

    /// The first row mapped, nil when there is none.
    func row<T>(_ sql: String, _ parameters: [PostgresValue] = [], map: (PostgresRow) throws -> T) throws -> T? {
        let result = try run(sql, parameters)
        return result.rowCount == 0 ? nil : try map(result.row(0))
    }

    /// One integer (a count, an id).
    func integer(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int64 {
        try row(sql, parameters) { try $0.int(0) } ?? 0
    }

    /// A statement that changes rows; returns how many.
    @discardableResult
    func write(_ sql: String, _ parameters: [PostgresValue] = []) throws -> Int64 {
        writes += 1
        batch.nextNotice = nil
        return try run(sql, parameters).affectedRows
    }

    /// A statement that changes rows and returns some (`RETURNING`).
    func writeReturning<T>(_ sql: String, _ parameters: [PostgresValue] = [], map: (PostgresRow) throws -> T) throws -> T? {
        writes += 1
        batch.nextNotice = nil
        return try row(sql, parameters, map: map)
    }

    private func run(_ sql: String, _ parameters: [PostgresValue]) throws -> PostgresResult {
        try converting { try connection.queryPrepared(sql, parameters) }
    }

    /// Runs `body`, its `PostgresError` leaving as a `StoreError` (a deadlock noted first).
    func converting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            if error.sqlState == "40P01" || error.sqlState == "40001" { rerunCause = error }
            throw error.storeError
        }
    }
}

@available(*, unavailable) extension PostgresStore: Sendable {}

extension PostgresRow {
    /// A column the query guarantees is not NULL.
    func int(_ column: Int) throws -> Int64 {
        guard let value = try int64(column) else {
            throw StoreError(.failed, message: "column \(column) is NULL where a number was expected")
        }
        return value
    }

    /// NULL reads as the empty string, as SQLite's reader does.
    func text(_ column: Int) -> String { string(column) ?? "" }

    func flag(_ column: Int) throws -> Bool { try bool(column) ?? false }
}

extension PostgresValue {
    init(_ value: Int64?) { self = value.map { .int($0) } ?? .null }
    init(_ value: Int?) { self = value.map { .int(Int64($0)) } ?? .null }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Double?) { self = value.map { .double($0) } ?? .null }
    init(_ value: Bool) { self = .bool(value) }
}

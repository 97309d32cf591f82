import ChorusPostgres
import ChorusSQLite
import Foundation

/// The SQLite end of `copy-to-postgres`: one read transaction on the store, so every
/// table is read as of one moment, and each row turned into PostgreSQL's values.
///
/// Opening with `Database` upgrades an older store to the current schema first, as a
/// chorusd start would; the data folder's lock (held by the caller) keeps chorusd out.
final class SQLiteSnapshot {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let path: String
    private let database: Database

    init(path: String) throws {
        self.path = path
        database = try Database(path: path)
        do {
            try checkEveryColumnIsCopied()
            try database.execute("BEGIN")
            // A deferred BEGIN reads nothing: the first SELECT fixes the snapshot.
            _ = try database.prepare("SELECT count(*) FROM sqlite_master").row { $0.int(0) }
        } catch {
            database.close()
            throw error
        }
    }

    func close() {
        if database.isInTransaction { try? database.execute("ROLLBACK") }
        database.close()
    }

    func count(_ table: ImportedTable) throws -> Int {
        Int(try database.prepare("SELECT count(*) FROM \(table.name)").row { $0.int(0) } ?? 0)
    }

    /// `sqlite_sequence`: the largest id each AUTOINCREMENT table ever gave out.
    func sequenceFloors() throws -> [String: Int64] {
        var floors: [String: Int64] = [:]
        for (name, seq) in try database.prepare("SELECT name, seq FROM sqlite_sequence").rows(map: { ($0.text(0), $0.int(1)) }) {
            floors[name] = seq
        }
        return floors
    }

    /// Hands the table's rows to `body` in chunks of up to `chunk` rows, in storage order.
    func read(_ table: ImportedTable, chunk: Int, _ body: ([[PostgresValue]]) throws -> Void) throws {
        let columns = table.columns.map { "\"\($0.sqlite)\"" }.joined(separator: ", ")
        let statement = try database.prepare("SELECT \(columns) FROM \(table.name)")
        var rows: [[PostgresValue]] = []
        rows.reserveCapacity(chunk)
        while try statement.step() {
            let row = try statement.currentRow
            rows.append(try table.columns.indices.map { try Self.value(row.value(Int32($0)), as: table.columns[$0], of: table) })
            if rows.count == chunk {
                try body(rows)
                rows.removeAll(keepingCapacity: true)
            }
        }
        if !rows.isEmpty { try body(rows) }
    }

    static func value(_ value: Statement.Value, as column: ImportedTable.Column, of table: ImportedTable) throws -> PostgresValue {
        switch (value, column.kind) {
        case (.null, _): return .null
        case (.integer(let number), .integer): return .int(number)
        case (.integer(let number), .flag): return .bool(number != 0)
        case (.integer(let number), .real): return .double(Double(number))
        case (.real(let number), .real): return .double(number)
        case (.text(let text), .text): return .text(text)
        default:
            throw Failure(description: "\(table.name).\(column.sqlite) holds \(value), not \(column.kind)")
        }
    }

    /// A table or column in the store that the copy does not know would be left behind
    /// silently: refused instead, before anything is read.
    private func checkEveryColumnIsCopied() throws {
        let tables = try database.prepare("""
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
            """).rows { $0.text(0) }
        let known = Dictionary(uniqueKeysWithValues: PostgresImport.tables.map { ($0.name, $0) })
        for name in tables where !PostgresImport.notCopied.contains(name) {
            guard let table = known[name] else {
                throw Failure(description: "\(path) has a table \(name) that this chorusd cannot copy")
            }
            let columns = try database.prepare("SELECT name FROM pragma_table_info(?1)").rows(.text(name)) { $0.text(0) }
            let copied = Set(table.columns.map(\.sqlite))
            if let missing = columns.first(where: { !copied.contains($0) }) {
                throw Failure(description: "\(path) has a column \(name).\(missing) that this chorusd cannot copy")
            }
        }
    }
}

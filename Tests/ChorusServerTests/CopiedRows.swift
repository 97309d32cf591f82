import ChorusPostgres
import ChorusSQLite
import Foundation
import Testing

/// Compares every table `copy-to-postgres` copies, row by row, between the SQLite file
/// and the PostgreSQL database, each value as canonical text.
enum CopiedRows {
    /// NULL, unlike any text a column holds.
    static let null = "\u{0}NULL"

    static func expectSame(sqlite path: String, postgres conninfo: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        let database = try Database(path: path)
        defer { database.close() }
        let connection = try PostgresConnection(conninfo)
        var compared = 0
        for table in PostgresImport.tables {
            let sqliteColumns = table.columns.map { "\"\($0.sqlite)\"" }.joined(separator: ", ")
            let fromSQLite = try database.prepare("SELECT \(sqliteColumns) FROM \(table.name)").rows { row in
                table.columns.indices.map { text(row.value(Int32($0)), table.columns[$0].kind) ?? null }
            }.sorted { $0.lexicographicallyPrecedes($1) }
            let postgresColumns = table.columns.map { "\"\($0.postgres)\"" }.joined(separator: ", ")
            let fromPostgres = try connection.query("SELECT \(postgresColumns) FROM \(table.name)").rows.map { row in
                table.columns.indices.map { text(row.string($0), table.columns[$0].kind) ?? null }
            }.sorted { $0.lexicographicallyPrecedes($1) }
            #expect(fromSQLite == fromPostgres, "table \(table.name) differs", sourceLocation: sourceLocation)
            #expect(!fromSQLite.isEmpty, "table \(table.name) is empty: the household should fill it", sourceLocation: sourceLocation)
            compared += fromSQLite.count
        }
        #expect(compared > 50, sourceLocation: sourceLocation)
        // What PostgreSQL keeps apart from the rows: the counter, and every event's audience.
        let last = try connection.query("SELECT last, (SELECT max(id) FROM events) FROM event_counter").firstRow()
        #expect(try last.int64(0) == last.int64(1), sourceLocation: sourceLocation)
        let unaddressed = try connection.query("""
            SELECT count(*) FROM events WHERE audience = '{}' AND (room IS NOT NULL OR user_id IS NOT NULL)
            """).firstRow().int64(0)
        #expect(unaddressed == 0, sourceLocation: sourceLocation)
        let dm = try connection.query("""
            SELECT audience = ARRAY[least(user_id, peer), greatest(user_id, peer)] FROM events WHERE name = 'dm'
            """).firstRow().bool(0)
        #expect(dm == true, sourceLocation: sourceLocation)
        // The last chat line went to everyone in the room then: ann, bob and cat.
        let said = try connection.query("""
            SELECT cardinality(audience) FROM events WHERE name = 'message' ORDER BY id DESC LIMIT 1
            """).firstRow().int64(0)
        #expect(said == 3, sourceLocation: sourceLocation)
    }

    /// SQLite's value as text; nil is NULL.
    static func text(_ value: Statement.Value, _ kind: ImportedTable.Kind) -> String? {
        switch value {
        case .null: nil
        case .integer(let number): kind == .flag ? String(number != 0) : kind == .real ? String(Double(number)) : String(number)
        case .real(let number): String(number)
        case .text(let text): text
        case .blob(let bytes): "blob \(bytes)"
        }
    }

    /// PostgreSQL's text form of the same value.
    static func text(_ value: String?, _ kind: ImportedTable.Kind) -> String? {
        guard let value else { return nil }
        switch kind {
        case .flag: return String(value == "t")
        case .real: return Double(value).map { String($0) } ?? value
        case .integer, .text: return value
        }
    }

    /// Rows in each table of the copy that has any; empty when there is no schema at all.
    static func counts(postgres conninfo: String) throws -> [String: Int64] {
        let connection = try PostgresConnection(conninfo)
        var counts: [String: Int64] = [:]
        for table in PostgresImport.tables {
            guard try connection.query("SELECT to_regclass($1) IS NOT NULL", [.text(table.name)]).firstRow().bool(0) == true else {
                continue
            }
            let count = try connection.query("SELECT count(*) FROM \(table.name)").firstRow().int64(0) ?? 0
            if count > 0 { counts[table.name] = count }
        }
        return counts
    }
}

import CSQLite
import ChorusStore

extension Database {
    /// Rebuilds `table` so its `id INTEGER PRIMARY KEY` becomes AUTOINCREMENT: without it
    /// SQLite gives a new row the largest id plus one, so deleting the newest room handed
    /// its number to the next room made, and old chat lines, SYNC replays, calendar UIDs
    /// and bots then pointed at a stranger's household.
    ///
    /// SQLite's documented way to change a table's definition: create the new table, copy
    /// the rows, drop the old one, rename, recreate its indexes. The new definition is the
    /// stored one with AUTOINCREMENT added, so columns added by earlier `ALTER TABLE`s are
    /// kept whatever order the migrations ran in. `floor` is the highest id known to have
    /// been used, deleted rows included; the next id is above it and above every row.
    func rebuildWithNeverReusedIDs(_ table: String, floor: Int64) throws {
        guard let definition = try prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1")
            .row(.text(table), map: { $0.text(0) })
        else {
            throw StoreError(code: SQLITE_ERROR, message: "no table \(table) to rebuild")
        }
        let key = "id INTEGER PRIMARY KEY"
        let rebuilt = "\(table)_rebuilt"
        guard let keyRange = definition.range(of: key), let columns = definition.firstIndex(of: "(") else {
            throw StoreError(code: SQLITE_ERROR, message: "table \(table) has no \(key) to make AUTOINCREMENT")
        }
        if definition[keyRange.upperBound...].hasPrefix(" AUTOINCREMENT") { return }
        // The stored text names the table as it was written (quoted once renamed), so
        // everything before the column list is replaced rather than searched for.
        let newDefinition = "CREATE TABLE \(rebuilt) "
            + definition[columns..<keyRange.lowerBound] + key + " AUTOINCREMENT" + definition[keyRange.upperBound...]
        let indexes = try prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?1 AND sql IS NOT NULL")
            .rows(.text(table), map: { $0.text(0) })

        try execute(newDefinition)
        try execute("INSERT INTO \(rebuilt) SELECT * FROM \(table)")
        try execute("DROP TABLE \(table)")
        try execute("ALTER TABLE \(rebuilt) RENAME TO \(table)")
        for index in indexes { try execute(index) }
        // Copying the rows set the sequence to the largest id copied; raise it to the floor.
        try prepare("UPDATE sqlite_sequence SET seq = max(seq, ?2) WHERE name = ?1").run(.text(table), .integer(floor))
        try prepare("INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)")
            .run(.text(table), .integer(floor))
    }

    /// The highest room, task, message, comment and DM ids the event log has seen, deleted
    /// ones included, so ids deleted before the rebuild are not handed out again either.
    /// A `message` event's `message.id` is a chat line's; a `dm` event's is a DM's (dms).
    func idsSeenInEventLog() throws -> [String: Int64] {
        try prepare("""
            SELECT coalesce(max(room), 0),
                   coalesce(max(json_extract(payload, '$.task.id')), 0),
                   coalesce(max(CASE WHEN name = 'dm' THEN NULL ELSE json_extract(payload, '$.message.id') END), 0),
                   coalesce(max(json_extract(payload, '$.comment.id')), 0),
                   coalesce(max(CASE WHEN name = 'dm' THEN json_extract(payload, '$.message.id') END), 0)
            FROM events
            """).row { row in
            ["rooms": row.int(0), "tasks": row.int(1), "messages": row.int(2), "comments": row.int(3), "dms": row.int(4)]
        } ?? [:]
    }

    /// Foreign keys broken by a step that ran with them off, as "table → parent" lines.
    func foreignKeyViolations() throws -> [String] {
        try prepare("PRAGMA foreign_key_check").rows { row in "\(row.text(0)) row \(row.int(1)) → \(row.text(2))" }
    }
}

import ChorusCore
import ChorusStore

extension Database {
    /// `chorusd after-restore` on SQLite: every AUTOINCREMENT table's `sqlite_sequence`
    /// entry (the event log's too) moved to `RestoreRules.counterAfterRestore` of the
    /// highest id the entry or the table's rows show, in one transaction. A table that
    /// never had a row has no entry yet, and gets one: the lost tail may have used its ids.
    public func moveCountersAfterRestore() throws -> [CounterMove] {
        try transaction {
            let tables = try prepare("""
                SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%' ORDER BY name
                """).rows { $0.text(0) }
            var moves: [CounterMove] = []
            for table in tables {
                let sequence = try prepare("SELECT seq FROM sqlite_sequence WHERE name = ?1").row(.text(table)) { $0.int(0) } ?? 0
                let largest = try prepare("SELECT coalesce(max(id), 0) FROM \(table)").row { $0.int(0) } ?? 0
                let used = max(sequence, largest)
                let next = RestoreRules.counterAfterRestore(used: used)
                try prepare("UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1").run(.text(table), .integer(next))
                try prepare("""
                    INSERT INTO sqlite_sequence (name, seq) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?1)
                    """).run(.text(table), .integer(next))
                moves.append(CounterMove(counter: table, from: used, to: next))
            }
            return moves
        }
    }
}

import ChorusStore

/// Creates or upgrades a database's schema at open, safely when several nodes start at
/// once: everything happens in one transaction holding a transaction-level advisory lock,
/// so the first node to take it migrates and the others, waiting on it, then find the
/// schema current. DDL is transactional in PostgreSQL, so a failure leaves the database
/// as it was.
enum PostgresSchema {
    /// The advisory lock key every Chorus node takes to migrate ("ChorusSC").
    static let lockKey: Int64 = 0x4368_6F72_7573_5343

    /// Applies the steps after the recorded version; returns how many were applied.
    /// A database newer than `migrations` is refused: old code could misread it.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, migrations: [String] = PostgresMigrations.all) throws -> Int {
        do {
            return try connection.transaction { db in
                try db.execute("SELECT pg_advisory_xact_lock($1::bigint)", [.int(lockKey)])
                try db.execute("""
                    CREATE TABLE IF NOT EXISTS schema_version (
                      one boolean PRIMARY KEY DEFAULT true CHECK (one),
                      version integer NOT NULL)
                    """)
                try db.execute("INSERT INTO schema_version (one, version) VALUES (true, 0) ON CONFLICT DO NOTHING")
                let current = Int(try db.query("SELECT version FROM schema_version").firstRow().int64(0) ?? 0)
                guard current <= migrations.count else {
                    throw StoreError(.failed, message: "the PostgreSQL schema is at version \(current), newer than this "
                        + "program knows (\(migrations.count)): run a newer chorusd")
                }
                for index in current..<migrations.count {
                    do {
                        try db.executeScript(migrations[index])
                    } catch let error as PostgresError {
                        throw StoreError(error.kind, message: "migration \(index + 1): \(error.storeError.message)")
                    }
                }
                try db.execute("UPDATE schema_version SET version = $1::integer", [.int(Int64(migrations.count))])
                return migrations.count - current
            }
        } catch let error as PostgresError {
            throw error.storeError.doing("migrating the PostgreSQL schema")
        }
    }

    /// The version recorded in the database, 0 when none is.
    static func version(_ connection: PostgresConnection) throws -> Int {
        let exists = try connection.query("SELECT to_regclass('schema_version') IS NOT NULL").firstRow().bool(0) ?? false
        guard exists else { return 0 }
        return Int(try connection.query("SELECT version FROM schema_version").firstRow().int64(0) ?? 0)
    }
}

import CSQLite

/// Numbered schema migrations, applied in order at open, each inside its own transaction,
/// and recorded in `PRAGMA user_version` (the number applied so far).
///
/// Later issues append to `all`; an applied migration is never edited, because databases
/// in the field already ran it and would never run the new text.
public enum Migrations {
    public static let all: [String] = [
        // 1: accounts.
        """
        CREATE TABLE users (
          id INTEGER PRIMARY KEY,
          name TEXT NOT NULL UNIQUE,
          password TEXT NOT NULL,
          admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0,1)),
          disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0,1)),
          created TEXT NOT NULL
        ) STRICT;
        """,
    ]
}

extension Database {
    /// Applies the migrations after `user_version`, each in one transaction together with
    /// its version bump, so a failure leaves the schema at the last good version.
    /// Returns how many were applied.
    @discardableResult
    func migrate(_ migrations: [String]) throws -> Int {
        let current = try schemaVersion
        guard current <= migrations.count else {
            // Running old code on a newer file could silently misread it.
            throw StoreError(code: SQLITE_ERROR, message: "schema version \(current) is newer than this program knows (\(migrations.count))")
        }
        for index in current..<migrations.count {
            do {
                try transaction {
                    try execute(migrations[index])
                    try execute("PRAGMA user_version = \(index + 1)")
                }
            } catch let error as StoreError {
                throw StoreError(code: error.code, message: "migration \(index + 1): \(error.message)")
            }
        }
        return migrations.count - current
    }
}


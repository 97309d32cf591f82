import ChorusCore
import ChorusStore

/// The accounts queries, kept together so tests can check their query plans.
enum AccountSQL {
    static let columns = "id, name, password, admin, disabled, created"
    static let insert = "INSERT INTO users (name, password, admin, disabled, created) VALUES (?1, ?2, 0, 0, ?3)"
    static let byName = "SELECT \(columns) FROM users WHERE name = ?1"
    static let byID = "SELECT \(columns) FROM users WHERE id = ?1"
    static let setPassword = "UPDATE users SET password = ?2 WHERE id = ?1"
    static let setAdmin = "UPDATE users SET admin = ?2 WHERE name = ?1"
    static let count = "SELECT count(*) FROM users"
    static let forgetOldRegistrations = "DELETE FROM registrations WHERE at < ?1"
    static let registrations = "SELECT at FROM registrations WHERE address = ?1 AND at >= ?2 ORDER BY at"
    static let recordRegistration = "INSERT INTO registrations (address, at) VALUES (?1, ?2)"

    static func record(_ row: Row) -> AccountRecord {
        AccountRecord(
            id: row.int(0), name: row.text(1), passwordHash: row.text(2),
            admin: row.bool(3), disabled: row.bool(4), created: row.text(5))
    }
}

extension Database {
    /// Creates a non-admin, enabled account.
    ///
    /// A duplicate name throws `.duplicate` with the reason "name NAME is taken" (the
    /// client can act on that).
    public func createAccount(name: String, passwordHash: String, created: String) throws -> AccountRecord {
        do {
            try prepare(AccountSQL.insert).run(.text(name), .text(passwordHash), .text(created))
        } catch let error as StoreError where error.kind == .duplicate {
            throw StoreError.nameTaken(name, message: error.message)
        }
        return AccountRecord(
            id: lastInsertRowID, name: name, passwordHash: passwordHash,
            admin: false, disabled: false, created: created)
    }

    public func account(named name: String) throws -> AccountRecord? {
        try prepare(AccountSQL.byName).row(.text(name), map: AccountSQL.record)
    }

    public func account(id: Int64) throws -> AccountRecord? {
        try prepare(AccountSQL.byID).row(.integer(id), map: AccountSQL.record)
    }

    /// Throws 404 when there is no such account: a silent no-op would hide a caller's bug.
    public func setPasswordHash(accountID: Int64, hash: String) throws {
        try prepare(AccountSQL.setPassword).run(.integer(accountID), .text(hash))
        if changes == 0 { throw StoreError.noAccount(id: accountID) }
    }

    /// Returns false when there is no such account.
    public func setAdmin(name: String, _ admin: Bool) throws -> Bool {
        try prepare(AccountSQL.setAdmin).run(.text(name), .init(admin))
        return changes > 0
    }

    public func accountCount() throws -> Int {
        Int(try prepare(AccountSQL.count).row { $0.int(0) } ?? 0)
    }

    /// One writer, so the count and the insert of a REGISTER's job cannot interleave with
    /// another's: no lock beyond the transaction.
    public func registrations(from address: String, since: Int64) throws -> [Int64] {
        try prepare(AccountSQL.forgetOldRegistrations).run(.integer(since))
        return try prepare(AccountSQL.registrations).rows(.text(address), .integer(since)) { $0.int(0) }
    }

    public func recordRegistration(from address: String, at: Int64) throws {
        try prepare(AccountSQL.recordRegistration).run(.text(address), .integer(at))
    }
}

import ChorusCore
import ChorusStore

/// Accounts, the server admin's lists and device and bot tokens.
extension PostgresStore {
    static let accountColumns = "id, name, password, admin, disabled, created"

    static func account(_ row: PostgresRow) throws -> AccountRecord {
        AccountRecord(id: try row.int(0), name: row.text(1), passwordHash: row.text(2),
                      admin: try row.flag(3), disabled: try row.flag(4), created: row.text(5))
    }

    /// A taken name is found by ON CONFLICT, not by an error: a failed statement would
    /// abort the whole batch transaction.
    public func createAccount(name: String, passwordHash: String, created: String) throws -> AccountRecord {
        guard let id = try writeReturning("""
            INSERT INTO users (name, password, admin, disabled, created) VALUES ($1, $2, false, false, $3)
            ON CONFLICT (name) DO NOTHING RETURNING id
            """, [.text(name), .text(passwordHash), .text(created)], map: { try $0.int(0) })
        else { throw StoreError.nameTaken(name, message: "users.name \(name) exists") }
        return AccountRecord(id: id, name: name, passwordHash: passwordHash, admin: false, disabled: false, created: created)
    }

    public func account(named name: String) throws -> AccountRecord? {
        try row("SELECT \(Self.accountColumns) FROM users WHERE name = $1", [.text(name)], map: Self.account)
    }

    public func account(id: Int64) throws -> AccountRecord? {
        try row("SELECT \(Self.accountColumns) FROM users WHERE id = $1", [.int(id)], map: Self.account)
    }

    public func setPasswordHash(accountID: Int64, hash: String) throws {
        if try write("UPDATE users SET password = $2 WHERE id = $1", [.int(accountID), .text(hash)]) == 0 {
            throw StoreError.noAccount(id: accountID)
        }
    }

    public func setAdmin(name: String, _ admin: Bool) throws -> Bool {
        try write("UPDATE users SET admin = $2 WHERE name = $1", [.text(name), .bool(admin)]) > 0
    }

    public func accountCount() throws -> Int { Int(try integer("SELECT count(*) FROM users")) }

    // MARK: Server admin

    public func totals() throws -> StoreTotals {
        try row("""
            SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM rooms), (SELECT count(*) FROM tasks),
                   (SELECT count(*) FROM tasks WHERE NOT done), (SELECT count(*) FROM messages), (\(EventCounter.last))
            """) { row in
            StoreTotals(accounts: Int(try row.int(0)), rooms: Int(try row.int(1)), tasks: Int(try row.int(2)),
                        openTasks: Int(try row.int(3)), messages: Int(try row.int(4)), events: Int(try row.int(5)))
        } ?? StoreTotals(accounts: 0, rooms: 0, tasks: 0, openTasks: 0, messages: 0, events: 0)
    }

    public func allAccounts() throws -> [(account: AccountRecord, rooms: Int)] {
        try rows("""
            SELECT \(Self.accountColumns), (SELECT count(*) FROM members m WHERE m.user_id = users.id) FROM users ORDER BY name
            """) { (try Self.account($0), Int(try $0.int(6))) }
    }

    public func allRooms() throws -> [(id: Int64, name: String, members: Int, owner: String, open: Int)] {
        try rows("""
            SELECT r.id, r.name, (SELECT count(*) FROM members m WHERE m.room = r.id),
                   coalesce((SELECT u.name FROM members m JOIN users u ON u.id = m.user_id
                              WHERE m.room = r.id AND m.role = 'owner' LIMIT 1), ''),
                   (SELECT count(*) FROM tasks t WHERE t.room = r.id AND NOT t.done)
            FROM rooms r ORDER BY r.id
            """) { (try $0.int(0), $0.text(1), Int(try $0.int(2)), $0.text(3), Int(try $0.int(4))) }
    }

    public func setDisabled(name: String, _ disabled: Bool) throws -> Bool {
        try write("UPDATE users SET disabled = $2 WHERE name = $1", [.text(name), .bool(disabled)]) > 0
    }

    // MARK: Device and bot tokens

    /// Either key taken (the label, or the digest) is the one duplicate SQLite reports too.
    public func createToken(user: Int64, label: String, kind: TokenKind, digest: String, created: String) throws -> TokenRecord {
        guard let id = try writeReturning("""
            INSERT INTO tokens (user_id, label, kind, digest, created) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT DO NOTHING RETURNING id
            """, [.int(user), .text(label), .text(kind.rawValue), .text(digest), .text(created)], map: { try $0.int(0) })
        else { throw StoreError.tokenLabelTaken(label, message: "tokens: label \(label) or its digest exists") }
        return TokenRecord(id: id, label: label, kind: kind, created: created, lastUsed: nil)
    }

    public func tokens(ofUser user: Int64) throws -> [TokenRecord] {
        try rows("SELECT id, label, kind, created, last_used FROM tokens WHERE user_id = $1 ORDER BY label", [.int(user)]) {
            TokenRecord(id: try $0.int(0), label: $0.text(1), kind: TokenRecord.kind(stored: $0.text(2)), created: $0.text(3),
                        lastUsed: $0.string(4))
        }
    }

    /// The token as it was before this use (its `last_used` the previous one), as SQLite's.
    public func useToken(digest: String, at time: String) throws -> (token: TokenRecord, account: AccountRecord)? {
        guard let (token, userID) = try writeReturning("""
            UPDATE tokens t SET last_used = $2 FROM tokens old WHERE t.digest = $1 AND old.id = t.id
            RETURNING t.id, t.label, t.kind, t.created, old.last_used, t.user_id
            """, [.text(digest), .text(time)],
            map: { (TokenRecord(id: try $0.int(0), label: $0.text(1), kind: TokenRecord.kind(stored: $0.text(2)),
                                created: $0.text(3), lastUsed: $0.string(4)), try $0.int(5)) }),
            let account = try account(id: userID) else { return nil }
        return (token, account)
    }

    public func revokeToken(user: Int64, label: String) throws -> Int64? {
        try writeReturning("DELETE FROM tokens WHERE user_id = $1 AND label = $2 RETURNING id", [.int(user), .text(label)]) {
            try $0.int(0)
        }
    }
}

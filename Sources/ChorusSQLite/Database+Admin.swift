import ChorusCore
import ChorusStore

/// What server admins see of the whole server.
extension Database {
    public func totals() throws -> StoreTotals {
        func count(_ sql: String) throws -> Int { Int(try prepare(sql).row { $0.int(0) } ?? 0) }
        return StoreTotals(accounts: try count("SELECT count(*) FROM users"), rooms: try count("SELECT count(*) FROM rooms"),
                      tasks: try count("SELECT count(*) FROM tasks"), openTasks: try count("SELECT count(*) FROM tasks WHERE done = 0"),
                      messages: try count("SELECT count(*) FROM messages"), events: try count("SELECT coalesce(max(id), 0) FROM events"))
    }

    /// Every account with how many rooms it is in.
    public func allAccounts() throws -> [(account: AccountRecord, rooms: Int)] {
        try prepare("""
            SELECT \(AccountSQL.columns), (SELECT count(*) FROM members m WHERE m.user = users.id) FROM users ORDER BY name
            """).rows { (AccountSQL.record($0), Int($0.int(6))) }
    }

    /// Every room with its member count, owner and open tasks.
    public func allRooms() throws -> [(id: Int64, name: String, members: Int, owner: String, open: Int)] {
        try prepare("""
            SELECT r.id, r.name, (SELECT count(*) FROM members m WHERE m.room = r.id),
                   coalesce((SELECT u.name FROM members m JOIN users u ON u.id = m.user WHERE m.room = r.id AND m.role = 'owner'), ''),
                   (SELECT count(*) FROM tasks t WHERE t.room = r.id AND t.done = 0)
            FROM rooms r ORDER BY r.id
            """).rows { ($0.int(0), $0.text(1), Int($0.int(2)), $0.text(3), Int($0.int(4))) }
    }

    /// Returns false when there is no such account.
    public func setDisabled(name: String, _ disabled: Bool) throws -> Bool {
        try prepare("UPDATE users SET disabled = ?2 WHERE name = ?1").run(.text(name), .init(disabled))
        return changes > 0
    }
}

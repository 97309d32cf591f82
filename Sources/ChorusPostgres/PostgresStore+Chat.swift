import ChorusCore
import ChorusStore

/// Room messages, task comments and direct messages.
extension PostgresStore {
    private func insertReturningID(_ sql: String, _ parameters: [PostgresValue]) throws -> Int64 {
        guard let id = try writeReturning(sql + " RETURNING id", parameters, map: { try $0.int(0) }) else {
            throw StoreError(.failed, message: "no id returned by \(sql.prefix(30))")
        }
        return id
    }

    public func insertMessage(room: Int64, sender: Int64, text: String, at: String) throws -> Int64 {
        try insertReturningID("INSERT INTO messages (room, sender, text, at) VALUES ($1, $2, $3, $4)",
                              [.int(room), .int(sender), .text(text), .text(at)])
    }

    public func history(room: Int64, limit: Int, beforeID: Int64?) throws -> [MessageRecord] {
        try rows("""
            SELECT m.id, m.room, u.name, m.text, m.at FROM messages m JOIN users u ON u.id = m.sender
            WHERE m.room = $1 AND m.id < $2 ORDER BY m.id DESC LIMIT $3
            """, [.int(room), .int(beforeID ?? Int64.max), .init(limit < 0 ? nil : Int64(limit))]) { row in
            MessageRecord(id: try row.int(0), room: try row.int(1), from: row.text(2), text: row.text(3), at: row.text(4))
        }.reversed()
    }

    public func insertComment(task: Int64, sender: Int64, text: String, at: String) throws -> Int64 {
        try insertReturningID("INSERT INTO comments (task, sender, text, at) VALUES ($1, $2, $3, $4)",
                              [.int(task), .int(sender), .text(text), .text(at)])
    }

    public func comments(onTask task: Int64, room: Int64?) throws -> [CommentRecord] {
        try rows("""
            SELECT c.id, c.task, u.name, c.text, c.at FROM comments c JOIN users u ON u.id = c.sender
            WHERE c.task = $1 ORDER BY c.id
            """, [.int(task)]) { row in
            CommentRecord(id: try row.int(0), task: try row.int(1), room: room, from: row.text(2), text: row.text(3), at: row.text(4))
        }
    }

    public func insertDM(sender: Int64, recipient: Int64, text: String, at: String) throws -> Int64 {
        try insertReturningID("INSERT INTO dms (sender, recipient, text, at) VALUES ($1, $2, $3, $4)",
                              [.int(sender), .int(recipient), .text(text), .text(at)])
    }
}

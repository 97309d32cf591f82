import ChorusCore

/// Room messages and task comments.
extension Database {
    public func insertMessage(room: Int64, sender: Int64, text: String, at: String) throws -> Int64 {
        try prepare("INSERT INTO messages (room, sender, text, at) VALUES (?1, ?2, ?3, ?4)")
            .run(.integer(room), .integer(sender), .text(text), .text(at))
        return lastInsertRowID
    }

    /// The newest `limit` messages before `beforeID` (all when nil), oldest first.
    public func history(room: Int64, limit: Int, beforeID: Int64?) throws -> [MessageRecord] {
        let rows = try prepare("""
            SELECT m.id, m.room, u.name, m.text, m.at FROM messages m JOIN users u ON u.id = m.sender
            WHERE m.room = ?1 AND m.id < ?2 ORDER BY m.id DESC LIMIT ?3
            """).rows(.integer(room), .integer(beforeID ?? Int64.max), .init(limit)) { row in
            MessageRecord(id: row.int(0), room: row.int(1), from: row.text(2), text: row.text(3), at: row.text(4))
        }
        return rows.reversed()
    }

    public func insertComment(task: Int64, sender: Int64, text: String, at: String) throws -> Int64 {
        try prepare("INSERT INTO comments (task, sender, text, at) VALUES (?1, ?2, ?3, ?4)")
            .run(.integer(task), .integer(sender), .text(text), .text(at))
        return lastInsertRowID
    }

    public func comments(onTask task: Int64, room: Int64?) throws -> [CommentRecord] {
        try prepare("""
            SELECT c.id, c.task, u.name, c.text, c.at FROM comments c JOIN users u ON u.id = c.sender
            WHERE c.task = ?1 ORDER BY c.id
            """).rows(.integer(task)) { row in
            CommentRecord(id: row.int(0), task: row.int(1), room: room, from: row.text(2), text: row.text(3), at: row.text(4))
        }
    }
}

import ChorusCore
import ChorusRendering
import Foundation

/// SAY, COMMENT, HISTORY: talking in a room and on a task.
extension CommandContext {
    static let maxText = 4000
    static let historyPage = 200

    /// SAY R TEXT...
    func say(_ reference: String, text: String) throws -> CommandResult {
        let room = try room(reference)
        try Self.checkText(text)
        let id = try db.insertMessage(room: room.id, sender: caller.id, text: text, at: timestamp)
        // No `present`: a chat line needs no zone of the caller's, so none is read.
        let message = Presentation.message(MessageRecord(id: id, room: room.id, from: caller.name, text: text, at: timestamp))
        try emitToRoom("message", room: room.id, payload: [("message", message)],
                       text: "\(TimeMarks.clock(now)) \(caller.name) in \(room.name): \(BidiClosing.closed(text))")
        try queueMentions(in: text, room: (room.id, room.name), task: nil)
        return result(.ok("said in \(room.name)", [("message", message)]))
    }

    /// COMMENT T TEXT...
    func comment(_ taskID: Int64, text: String) throws -> CommandResult {
        let (task, _) = try task(taskID)
        try Self.checkText(text)
        let id = try db.insertComment(task: taskID, sender: caller.id, text: text, at: timestamp)
        let comment = Presentation.comment(CommentRecord(id: id, task: taskID, room: task.room, from: caller.name, text: text, at: timestamp))
        try emit("comment", room: task.room, user: task.room == nil ? task.ownerID : nil,
                 payload: [("room", task.room.map { .int($0) } ?? .null), ("comment", comment)],
                 text: "\(TimeMarks.clock(now)) \(caller.name) on #\(taskID) \(task.title): \(BidiClosing.closed(text))", audience: try audience(of: task))
        // "A comment on a task of yours": the task's assignee and its creator, while they
        // can still read it (a creator who left the room hears nothing more of it).
        let readers = Set(try audience(of: task))
        var owners = [task.creatorID]
        if let name = task.assignee, let assignee = try db.account(named: name) { owners.append(assignee.id) }
        owners = owners.filter(readers.contains)
        try queueNotice(.comment, .task(.comment, task, detail: "\(caller.name): \(text)"), for: owners)
        try queueMentions(in: text, room: task.room.map { ($0, task.roomName ?? "") }, task: task, except: Set(owners))
        return result(.ok("commented on #\(taskID)", [("comment", comment)]))
    }

    /// HISTORY R [LIMIT] [before=ID]
    func history(_ reference: String, limit asked: Int?, before: Int64?) throws -> CommandResult {
        let room = try room(reference)
        let limit = min(asked ?? 50, Self.historyPage)
        let page = try db.history(room: room.id, limit: limit + 1, beforeID: before)
        // The newest that fit; the older ones are the next page.
        let fitting = Self.countFitting(page.suffix(limit).reversed()) { $0.text.utf8.count + $0.from.utf8.count + 120 }
        let more = page.count > fitting
        let messages = Array(page.suffix(fitting))
        let body = messages.map { "  \(present.stamp(stored: $0.at)) \($0.from): \(BidiClosing.closed($0.text))" }
        let hint = more ? " · more: HISTORY \(room.id) \(limit) before=\(messages.first?.id ?? 0)" : ""
        var done = result(.ok("\(messages.count) message\(messages.count == 1 ? "" : "s") in \(room.name)\(hint)", body: body,
                              [("messages", .array(messages.map(present.message))), ("more", .bool(more))]))
        // Read after the page: every message in it has its event at or below this.
        done.seenUpTo = try db.lastEventID()
        return done
    }

    static func checkText(_ text: String) throws {
        try FieldText.multiLine(text, "a message", maxCharacters: maxText)
    }
}

import ChorusCore
import ChorusStore
import Foundation

/// " · 2 rooms · 3 tasks for you (1 overdue) · 1 invitation": what LOGIN's OK tells a person
/// (invitations only when there are some: `ROOMS` lists them).
enum LoginSummary {
    static func text(for user: Int64, db: any Store, now: Date) throws -> String {
        let rooms = try db.rooms(ofUser: user, now: now).count
        let tasks = try db.tasks(in: .mine(user: user), done: false)
        let overdue = tasks.filter(TaskTiming(now: now).isOverdue).count
        var text = " · \(rooms) room\(rooms == 1 ? "" : "s") · \(tasks.count) task\(tasks.count == 1 ? "" : "s") for you"
        if overdue > 0 { text += " (\(overdue) overdue)" }
        let invitations = try db.invitations(ofUser: user).count
        if invitations > 0 { text += " · \(invitations) invitation\(invitations == 1 ? "" : "s")" }
        return text
    }
}

import ChorusCore
import ChorusStore
import Foundation

/// What a login's OK tells a person: " · 2 rooms · 3 tasks for you (1 overdue) · 1
/// invitation · 3 new in Flat 2B" (invitations and unread rooms only when there are some:
/// `ROOMS` lists them), and in JSON the rooms with something unread.
struct LoginSummary: Sendable {
    /// The text after "logged in as NAME".
    let text: String
    /// The rooms with unread messages or comments, by id: JSON `unread`. Nil when the
    /// summary could not be read: the reply then says nothing rather than "nothing new".
    let unread: [UnreadRoom]?

    struct UnreadRoom: Sendable, Equatable {
        let id: Int64
        let name: String
        let unread: Int
    }

    /// For a login that failed, or whose summary could not be read.
    static let none = LoginSummary(text: "", unread: nil)

    /// A new account's: it has read nothing, and a room it joined as it signed up holds
    /// nothing new to it (`ReadMarker.justJoined`).
    static let newAccount = LoginSummary(text: "", unread: [])

    static func read(for user: Int64, db: any Store, now: Date) throws -> LoginSummary {
        let rooms = try db.rooms(ofUser: user, now: now)
        let tasks = try db.tasks(in: .mine(user: user), done: false)
        let overdue = tasks.filter(TaskTiming(now: now).isOverdue).count
        var text = " · \(rooms.count) room\(rooms.count == 1 ? "" : "s") · \(tasks.count) task\(tasks.count == 1 ? "" : "s") for you"
        if overdue > 0 { text += " (\(overdue) overdue)" }
        let invitations = try db.invitations(ofUser: user).count
        if invitations > 0 { text += " · \(invitations) invitation\(invitations == 1 ? "" : "s")" }
        let unread = rooms.filter { $0.unread > 0 }.map { UnreadRoom(id: $0.id, name: $0.name, unread: $0.unread) }
        for room in unread { text += " · \(room.unread) new in \(room.name)" }
        return LoginSummary(text: text, unread: unread)
    }

    /// `"unread":[{"room":ID,"name":NAME,"unread":N}]`, empty when nothing is unread; no
    /// field at all when the summary could not be read.
    var unreadFields: [(String, JSONValue)] {
        guard let unread else { return [] }
        return [("unread", .array(unread.map { room in
            .object([("room", .int(room.id)), ("name", .string(room.name)), ("unread", .int(room.unread))])
        }))]
    }
}

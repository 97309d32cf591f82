import ChorusCore
import ChorusRendering
import ChorusStore
import Foundation

/// Notices for people who are not looking (CONTRACT §10), queued in the transaction of
/// the event they tell about, so a notice exists exactly when its event does. Which
/// events make which notice for whom is decided here, at each event's source; whether a
/// person wants it, and when (quiet hours), is `NotifyRules`'s. Sending is the
/// dispatcher's (`NoticeDispatcher`), on whichever node claims the row.
extension CommandContext {
    /// Queues `wording` as a `kind` notice for each of `users` but the caller.
    func queueNotice(_ kind: NotifyKind, _ wording: NoticeWording, for users: [Int64]) throws {
        try queueNotice(kind, for: users) { _ in wording }
    }

    /// Queues a `kind` notice for each of `users` but the caller, worded with times in
    /// each one's zone (`NOTIFY tz=`), as text mode shows them.
    func queueNotice(_ kind: NotifyKind, for users: [Int64], wording words: (Presentation) -> NoticeWording) throws {
        for user in Delivery.uniqued(users) where user != caller.id {
            let choices = try db.notifyChoices(ofUser: user) ?? .defaults
            // A disabled account gets nothing: its devices and mailbox may not be its owner's now.
            guard try db.account(id: user)?.disabled == false else { continue }
            guard NotifyRules.wants(kind, choices) else { continue }
            let mailTo = mailEnabled ? choices.mailTo : nil
            guard choices.push || mailTo != nil else { continue }
            let release = NotifyRules.release(at: now, choices)
            let wording = words(Presentation(now: now, calendar: choices.calendar()))
            queuedNotices += try db.queueNotice(QueuedNotice(
                user: user, event: kind.eventName, title: wording.title, body: wording.body, url: wording.url, topic: wording.topic,
                urgency: kind.urgency, ttl: kind.timeToLive, notBefore: Int64(release.timeIntervalSince1970.rounded(.down)),
                push: choices.push, mailTo: mailTo), created: timestamp)
        }
    }

    /// A task given to someone by someone else.
    func queueAssigned(_ task: TaskRecord) throws {
        guard let name = task.assignee, let assignee = try db.account(named: name) else { return }
        try queueNotice(.assigned, for: [assignee.id]) { shown in
            .task(.assigned, task, detail: "\(caller.name) gave it to you" + Self.dueDetail(task, shown))
        }
    }

    /// Everyone a line names with `@name` who can read it: a member of `room` (for a
    /// message or a comment in a room), or the owner of a personal task.
    func queueMentions(in text: String, room: (id: Int64, name: String)?, task: TaskRecord?, except: Set<Int64> = []) throws {
        let names = Mentions.names(in: text)
        guard !names.isEmpty else { return }
        let readers = Set(try room.map { try db.memberIDs(ofRoom: $0.id) } ?? task.flatMap(\.ownerID).map { [$0] } ?? [])
        var mentioned: [Int64] = []
        for name in names {
            if let account = try db.account(named: name), readers.contains(account.id), !except.contains(account.id) {
                mentioned.append(account.id)
            }
        }
        try queueNotice(.mention, .mention(by: caller.name, room: room, task: task.map { ($0.id, $0.title) }, text: text), for: mentioned)
    }

    private static func dueDetail(_ task: TaskRecord, _ shown: Presentation) -> String {
        task.due == nil ? "" : ", \(shown.dueText(task))"
    }
}

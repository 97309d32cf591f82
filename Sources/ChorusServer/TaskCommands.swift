import ChorusCore
import ChorusRendering
import ChorusStore
import Foundation

/// TASK ... and TASKS: chores, their assignees, progress and subtasks.
extension CommandContext {

    /// TASK ADD R|me TITLE [OPTIONS]
    func taskAdd(_ reference: String, title raw: String, options: [String: String]) throws -> CommandResult {
        let title = try Self.title(raw)
        var draft: TaskDraft
        if reference.lowercased() == "me" {
            draft = TaskDraft(room: nil, owner: caller.id, title: title, creator: caller.id, created: timestamp)
        } else {
            let room = try room(reference)
            draft = TaskDraft(room: room.id, owner: nil, title: title, creator: caller.id, created: timestamp)
        }
        var task = try reload(try db.insertTask(draft))
        try apply(options, to: &task, adding: true)
        let saved = try save(task)
        let whose = saved.assignee.map { " for \($0)" } ?? ""
        try emitTask("task.added", saved, text: "\(caller.name) added #\(saved.id) \(saved.title)\(whose)\(place(saved))")
        return result(.ok("added #\(saved.id) \(saved.title)\(place(saved))", body: [present.taskLine(saved)],
                          [("task", present.task(saved))]))
    }

    /// TASK SHOW T
    func taskShow(_ id: Int64) throws -> CommandResult {
        let (task, _) = try task(id)
        let subtasks = try db.subtasks(of: id)
        let comments = try db.comments(onTask: id, room: task.room)
        var body = [present.taskLine(task)]
        body.append("    created by \(task.creator) \(task.created)" + (task.doneBy.map { " · done by \($0) \(task.doneAt ?? "")" } ?? ""))
        if let days = present.daysLeftBar(task) { body.append("    " + days) }
        if task.points != 1 { body.append("    points \(task.points)") }
        if let notes = task.notes { body.append("    notes: \(notes)") }
        if let start = task.start {
            let days = task.estimate.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
            body.append("    start \(start)" + (days.map { " · estimate \($0) days" } ?? ""))
        }
        if let parent = task.parent { body.append("    subtask of #\(parent)") }
        body += subtasks.map { "  " + present.taskLine($0) }
        body += comments.map { "    \(present.clock(stored: $0.at)) \($0.from): \($0.text)" }
        var shape = present.task(task)
        if case .object(var fields) = shape {
            fields.append(("subtasks", .array(subtasks.map(present.task))))
            fields.append(("comments", .array(comments.map(present.comment))))
            shape = .object(fields)
        }
        return result(.ok("#\(id) \(task.title)", body: body, [("task", shape)]))
    }

    /// TASK EDIT T OPTIONS
    func taskEdit(_ id: Int64, options: [String: String]) throws -> CommandResult {
        var task = try editableTask(id, to: "edit")
        try apply(options, to: &task, adding: false)
        let saved = try save(task)
        let changed = options.keys.sorted().joined(separator: ", ")
        try emitTask("task.updated", saved, text: "\(caller.name) changed \(changed) of #\(id) \(saved.title)")
        return result(.ok("updated #\(id) \(saved.title)", body: [present.taskLine(saved)], [("task", present.task(saved))]))
    }

    /// TASK ASSIGN T USER|-
    func taskAssign(_ id: Int64, to name: String?) throws -> CommandResult {
        var (task, _) = try task(id)
        let assignee = try name.map { try member(named: $0, for: task) }
        task.assign(to: assignee.map { ($0.id, $0.name) })
        let saved = try save(task)
        let text = assignee.map { "\(caller.name) gave #\(id) \(saved.title) to \($0.name)" }
            ?? "\(caller.name) unassigned #\(id) \(saved.title)"
        try emitTask("task.updated", saved, text: text)
        return result(.ok(assignee.map { "#\(id) is now \($0.name)'s" } ?? "#\(id) is unassigned", [("task", present.task(saved))]))
    }

    /// TASK PROGRESS T 0..100
    func taskProgress(_ id: Int64, percent raw: String) throws -> CommandResult {
        let (task, _) = try task(id)
        let digits = raw.hasSuffix("%") ? String(raw.dropLast()) : raw
        guard let percent = Int(digits), (0...100).contains(percent) else {
            throw ChorusError.badValue("progress is a whole percentage 0-100, not \(raw)")
        }
        let saved = try save(try TaskLifecycle.setProgress(task, to: percent))
        try emitTask("task.updated", saved, text: "\(caller.name) moved #\(id) \(saved.title) to \(percent)%\(place(saved))")
        return result(.ok("#\(id) \(saved.title) \(Presentation.bar(saved.effectiveProgress))", [("task", present.task(saved))]))
    }

    /// TASK DONE T
    func taskDone(_ id: Int64) throws -> CommandResult {
        let (task, _) = try task(id)
        // Finished before and reopened: the period's next occurrence exists already.
        let made = try task.nextOccurrence.flatMap { try db.task(id: $0) }
        // Each name the rotation tries is looked up once; the pick's account is the one found then.
        var accounts: [String: AccountRecord] = [:]
        var finishing = try TaskLifecycle.finish(task, by: (caller.id, caller.name), at: timestamp, now: now,
                                                 madeBefore: made != nil) { name in
            do {
                accounts[name] = try member(named: name, for: task)
                return true
            } catch DomainError.noSuchUser, DomainError.notAMember, DomainError.personalTaskAssignee {
                return false  // left the room, or no longer an account
            }
        }
        let next = try finishing.next.map { try create($0, assignee: $0.assignee.flatMap { accounts[$0] }) }
        if let next { finishing.task.nextOccurrence = next.id }
        let saved = try save(finishing.task)
        let roomText = try roomProgressText(saved)
        var fields: [(String, JSONValue)] = [("task", present.task(saved))]
        var summary = "#\(id) \(saved.title) — done\(roomText)"
        for event in finishing.events {
            switch event {
            case .finished:
                try emitTask("task.done", saved, text: "\(caller.name) finished #\(id) \(saved.title)\(roomText)")
            case .nextOccurrenceAdded:
                guard let next else { continue }
                let whose = next.assignee.map { " for \($0)" } ?? ""
                try emitTask("task.added", next, text: "next time: #\(next.id) \(next.title)\(whose), \(present.dueText(next))\(place(next))")
                fields.append(("next", present.task(next)))
                summary += " · next: #\(next.id)\(whose), \(present.dueText(next))"
            }
        }
        if let made {
            summary += " · next: #\(made.id) made before"
        }
        return result(.ok(summary, fields))
    }

    /// TASK REOPEN T
    func taskReopen(_ id: Int64) throws -> CommandResult {
        let (task, _) = try task(id)
        let saved = try save(try TaskLifecycle.reopen(task))
        try emitTask("task.reopened", saved, text: "\(caller.name) reopened #\(id) \(saved.title)\(place(saved))")
        return result(.ok("#\(id) \(saved.title) is open again", [("task", present.task(saved))]))
    }

    /// TASK DELETE T
    func taskDelete(_ id: Int64) throws -> CommandResult {
        let task = try editableTask(id, to: "delete")
        let audience = try audience(of: task)
        try db.deleteTask(id: id)
        try emit("task.deleted", room: task.room, user: task.room == nil ? task.ownerID : nil,
                 payload: [("room", task.room.map { .int($0) } ?? .null), ("task", .int(id)), ("title", .string(task.title))],
                 text: "\(caller.name) deleted #\(id) \(task.title)\(place(task))", audience: audience)
        return result(.ok("deleted #\(id) \(task.title)", [("task", .int(id))]))
    }

    /// TASKS [R|mine|me] [open|done|overdue|all]
    func tasks(scope raw: String?, filter rawFilter: String?) throws -> CommandResult {
        let filter = rawFilter ?? "open"
        guard ["open", "done", "overdue", "all"].contains(filter) else {
            throw ChorusError.syntax("unknown filter \(filter); usage: TASKS [R|mine|me] [open|done|overdue|all]")
        }
        let scope: TaskScope
        switch raw?.lowercased() {
        case nil, "mine": scope = .mine(user: caller.id)
        case "me": scope = .personal(user: caller.id)
        default: scope = .room(try room(raw ?? "").id)
        }
        let done: Bool? = filter == "all" ? nil : filter == "done"
        var tasks = try db.tasks(in: scope, done: done)
        if filter == "overdue" { tasks = tasks.filter(present.timing.isOverdue) }
        let overdue = tasks.filter(present.timing.isOverdue).count
        let summary = "\(tasks.count) task\(tasks.count == 1 ? "" : "s")" + (overdue > 0 && filter != "overdue" ? " (\(overdue) overdue)" : "")
        return result(.ok(summary, body: tasks.map { present.taskLine($0) }, [("tasks", .array(tasks.map(present.task)))]))
    }

    // MARK: Options

    /// Applies `key=value` options; an empty value clears a field. `adding`: the task was
    /// inserted by this same command (TASK ADD), so it was not there when the user typed.
    private func apply(_ options: [String: String], to task: inout TaskRecord, adding: Bool) throws {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            let clear = value.isEmpty
            switch key {
            case "title": task.title = try TaskFields.title(value)
            case "notes":
                try FieldText.multiLine(value, "notes", maxCharacters: TaskFields.maxNotes)
                task.notes = clear ? nil : value
            case "assign":
                let account = clear || value == "-" ? nil : try member(named: value, for: task)
                task.assign(to: account.map { ($0.id, $0.name) })
            case "due": TaskLifecycle.setDue(&task, to: clear ? nil : try When.parse(value, now: now).stored)
            case "start": task.start = clear ? nil : try When.parse(value, now: now).stored
            case "estimate": task.estimate = try TaskFields.estimate(value)
            case "points": task.points = try TaskFields.points(value)
            case "parent": task.parent = clear ? nil : try parent(value, for: task, adding: adding)
            case "remind": task.remind = clear ? nil : try When.parse(value, now: now).stored
            case "repeat": TaskLifecycle.setRepeat(&task, to: clear ? nil : try RepeatRule(parsing: value).stored)
            case "rotate": task.rotate = clear ? nil : try rotation(value, for: task)
            default: throw ChorusError.syntax("unknown option \(key)")
            }
        }
    }

    /// A parent must be a visible top-level task of the same room (`TaskFields.requireParent`).
    private func parent(_ raw: String, for task: TaskRecord, adding: Bool) throws -> Int64 {
        let id = try TaskFields.parentID(raw)
        // A task being added already has its id here; to the user that task does not exist yet.
        guard !(adding && id == task.id) else { throw DomainError.noSuchTask(id) }
        let (parent, _) = try self.task(id)
        try TaskFields.requireParent(parent, for: task) { !(try db.subtasks(of: task.id).isEmpty) }
        return id
    }

    /// `rotate=alice,bob,carol`: members of the task's room, each once, in turn order.
    private func rotation(_ raw: String, for task: TaskRecord) throws -> String {
        try TaskFields.requireRotatable(task)
        var names: [String] = []
        for word in raw.split(separator: ",", omittingEmptySubsequences: true) {
            try TaskFields.addTurn(try member(named: word.trimmingCharacters(in: .whitespaces), for: task).name, to: &names)
        }
        return try TaskFields.rotation(names)
    }

    /// Creates the next occurrence `TaskLifecycle.finish` decided on, for `assignee`.
    private func create(_ occurrence: NextOccurrence, assignee: AccountRecord?) throws -> TaskRecord {
        var draft = TaskDraft(room: occurrence.room, owner: occurrence.owner, title: occurrence.title,
                              creator: occurrence.creator, created: timestamp)
        draft.notes = occurrence.notes
        draft.points = occurrence.points
        draft.estimate = occurrence.estimate
        draft.parent = occurrence.parent
        var next = try reload(try db.insertTask(draft))
        next.due = occurrence.due
        next.start = occurrence.start
        next.remind = occurrence.remind
        next.repeatRule = occurrence.repeatRule
        next.rotate = occurrence.rotate
        next.repeatDay = occurrence.repeatDay
        next.assign(to: assignee.map { ($0.id, $0.name) })
        return try save(next)
    }

    /// Only members of the task's room can take it; a personal task only its owner.
    private func member(named name: String, for task: TaskRecord) throws -> AccountRecord {
        let account = try user(named: name)
        let role = try task.room.flatMap { try db.role(ofUser: account.id, inRoom: $0) }
        try Permissions.requireAssignable((account.id, account.name), to: task, role: role)
        return account
    }

    /// Writes the task as the domain leaves it to be stored, and reads it back with its
    /// computed fields.
    private func save(_ task: TaskRecord) throws -> TaskRecord {
        try db.updateTask(TaskLifecycle.readyToStore(task))
        return try reload(task.id)
    }

    private func reload(_ id: Int64) throws -> TaskRecord {
        guard let task = try db.task(id: id) else { throw ChorusError.internal("task \(id) vanished") }
        return task
    }

    private func place(_ task: TaskRecord) -> String {
        task.roomName.map { " in \($0)" } ?? ""
    }

    /// " · Flat 2B now [#######---] 70%"
    private func roomProgressText(_ task: TaskRecord) throws -> String {
        guard let id = task.room, let room = try db.room(id: id, forUser: caller.id, now: now) else { return "" }
        return " · \(room.name) now \(Presentation.bar(room.progress))"
    }

    static func title(_ raw: String) throws -> String {
        try TaskFields.title(raw)
    }
}

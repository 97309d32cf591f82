import ChorusCore
import ChorusRendering
import ChorusStore
import Foundation

/// TASK ... and TASKS: chores, their assignees, progress and subtasks.
extension CommandContext {

    /// TASK ADD R|me TITLE [OPTIONS]
    func taskAdd(_ home: TaskPlace, title raw: String, options: [TaskOption]) throws -> CommandResult {
        let title = try TaskFields.title(raw)
        var draft: TaskDraft
        switch home {
        case .personal:
            draft = TaskDraft(room: nil, owner: caller.id, title: title, creator: caller.id, created: timestamp)
        case .room(let reference):
            let room = try room(reference)
            draft = TaskDraft(room: room.id, owner: nil, title: title, creator: caller.id, created: timestamp)
        }
        var task = try reload(try db.insertTask(draft))
        try apply(options, to: &task, adding: true)
        let saved = try save(task)
        let whose = saved.assignee.map { " for \($0)" } ?? ""
        try emitTask("task.added", saved, text: "\(caller.name) added #\(saved.id) \(saved.title)\(whose)\(place(saved))")
        try queueAssigned(saved)
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
        if let notes = task.notes { body += Self.noteLines(notes) }
        if let start = task.start {
            let days = task.estimate.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }
            body.append("    start \(start)" + (days.map { " · estimate \($0) day\($0 == "1" ? "" : "s")" } ?? ""))
        }
        if let parent = task.parent { body.append("    subtask of #\(parent)") }
        body += subtasks.map { "  " + present.taskLine($0) }
        body += comments.map { "    \(present.stamp(stored: $0.at)) \($0.from): \(BidiClosing.closed($0.text))" }
        var shape = present.task(task)
        if case .object(var fields) = shape {
            fields.append(("subtasks", .array(subtasks.map(present.task))))
            fields.append(("comments", .array(comments.map(present.comment))))
            shape = .object(fields)
        }
        return result(.ok("#\(id) \(task.title)", body: body, [("task", shape)]))
    }

    /// Notes as lines under the task, the first after `notes:` and the rest lined up
    /// beneath it: a newline in the notes starts a line (a body line cannot hold one, so it
    /// would show as a literal `\n`); any other control character is still shown escaped,
    /// and each line closes its own bidirectional controls.
    static func noteLines(_ notes: String) -> [String] {
        notes.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            let text = line.hasSuffix("\r") ? line.dropLast() : line
            return (index == 0 ? "    notes: " : "           ") + BidiClosing.closed(String(text))
        }
    }

    /// TASK EDIT T OPTIONS
    func taskEdit(_ id: Int64, options: [TaskOption]) throws -> CommandResult {
        var task = try editableTask(id, to: "edit")
        try apply(options, to: &task, adding: false)
        let saved = try save(task)
        let changed = options.map(\.key).joined(separator: ", ")
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
        if assignee != nil { try queueAssigned(saved) }
        return result(.ok(assignee.map { "#\(id) is now \($0.name)'s" } ?? "#\(id) is unassigned", [("task", present.task(saved))]))
    }

    /// TASK PROGRESS T 0..100
    func taskProgress(_ id: Int64, percent: Int) throws -> CommandResult {
        let (task, _) = try task(id)
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
                try emitTask("task.added", next, text: "next time: #\(next.id) \(next.title)\(whose), \(TimeMarks.dueText(next, now: now))\(place(next))")
                fields.append(("next", present.task(next)))
                try queueAssigned(next)
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
    func tasks(scope listed: TaskListScope, filter: TaskFilter) throws -> CommandResult {
        let scope: TaskScope
        switch listed {
        case .mine: scope = .mine(user: caller.id)
        case .personal: scope = .personal(user: caller.id)
        case .room(let reference): scope = .room(try room(reference).id)
        }
        return try taskList(in: scope, filter: filter)
    }

    /// TASKS @NAME [open|done|overdue|all]: the tasks assigned to NAME in the rooms the
    /// caller shares with them, never NAME's personal ones. Someone who shares no room with
    /// the caller answers exactly like an unknown name, so nobody can probe for accounts.
    func tasksOfHousemate(_ name: String, filter: TaskFilter) throws -> CommandResult {
        // A room of the caller's named `@NAME` is found first, as TASKS R found it before.
        if try !db.roomIDs(named: "@" + name, forUser: caller.id).isEmpty {
            return try tasks(scope: .room("@" + name), filter: filter)
        }
        let account = try db.account(named: name.lowercased())
        // The same query for an unknown name as for a stranger (id 0 is nobody's), so not
        // even the time taken tells them apart.
        let shared = try db.sharedRoomIDs(of: caller.id, and: account?.id ?? 0)
        let housemate = try Permissions.requireHousemate(named: name, found: account?.id, caller: caller.id, sharedRooms: shared)
        return try taskList(in: .sharedWith(user: housemate, viewer: caller.id), filter: filter, whose: " for \(account?.name ?? name)")
    }

    /// TASKS' reply: the tasks in `scope` that pass `filter`, one line each.
    func taskList(in scope: TaskScope, filter: TaskFilter, whose: String = "") throws -> CommandResult {
        let done: Bool? = filter == .all ? nil : filter == .done
        var tasks = try db.tasks(in: scope, done: done)
        if filter == .overdue { tasks = tasks.filter(present.timing.isOverdue) }
        let overdue = tasks.filter(present.timing.isOverdue).count
        let summary = "\(tasks.count) task\(tasks.count == 1 ? "" : "s")\(whose)" + (overdue > 0 && filter != .overdue ? " (\(overdue) overdue)" : "")
        return result(.ok(summary, body: tasks.map { present.taskLine($0) }, [("tasks", .array(tasks.map(present.task)))]))
    }

    // MARK: Options

    /// Applies `key=value` options; an empty value clears a field. `adding`: the task was
    /// inserted by this same command (TASK ADD), so it was not there when the user typed.
    private func apply(_ options: [TaskOption], to task: inout TaskRecord, adding: Bool) throws {
        for option in options {
            switch option {
            case .title(let value): task.title = try TaskFields.title(value)
            case .notes(let value):
                try FieldText.multiLine(value, "notes", maxCharacters: TaskFields.maxNotes)
                task.notes = value.isEmpty ? nil : value
            case .assign(let name):
                let account = try name.map { try member(named: $0, for: task) }
                task.assign(to: account.map { ($0.id, $0.name) })
            case .due(let word): TaskLifecycle.setDue(&task, to: try word.map { try When(resolving: $0, now: now).stored })
            case .start(let word): task.start = try word.map { try When(resolving: $0, now: now).stored }
            case .estimate(let days): task.estimate = days
            case .points(let points): task.points = points ?? 1
            case .parent(let id): task.parent = try id.map { try parent($0, for: task, adding: adding) }
            case .remind(let word): task.remind = try word.map { try When(resolving: $0, now: now).stored }
            case .repeat(let word): TaskLifecycle.setRepeat(&task, to: word.map { RepeatRule($0).stored })
            case .rotate(let names): task.rotate = try names.map { try rotation($0, for: task) }
            }
        }
    }

    /// A parent must be a visible top-level task of the same room (`TaskFields.requireParent`).
    private func parent(_ id: Int64, for task: TaskRecord, adding: Bool) throws -> Int64 {
        // A task being added already has its id here; to the user that task does not exist yet.
        guard !(adding && id == task.id) else { throw DomainError.noSuchTask(id) }
        let (parent, _) = try self.task(id)
        try TaskFields.requireParent(parent, for: task) { !(try db.subtasks(of: task.id).isEmpty) }
        return id
    }

    /// `rotate=alice,bob,carol`: members of the task's room, each once, in turn order.
    private func rotation(_ given: [String], for task: TaskRecord) throws -> String {
        try TaskFields.requireRotatable(task)
        var names: [String] = []
        for word in given {
            try TaskFields.addTurn(try member(named: word, for: task).name, to: &names)
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
        guard let saved = try db.updateTaskReadingBack(TaskLifecycle.readyToStore(task)) else {
            throw ChorusError.taskVanished(task.id)
        }
        return saved
    }

    private func reload(_ id: Int64) throws -> TaskRecord {
        guard let task = try db.task(id: id) else { throw ChorusError.taskVanished(id) }
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
}

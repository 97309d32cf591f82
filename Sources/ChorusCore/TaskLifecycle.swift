import Foundation

/// An event a lifecycle step asks for, as a value: the handler stores and renders it once
/// the records it names are saved.
public enum TaskEvent: Sendable, Equatable {
    /// `task.done` for the finished task.
    case finished
    /// `task.added` for the next occurrence, once it has been created.
    case nextOccurrenceAdded
}

/// What finishing a task decides.
public struct Finishing: Sendable, Equatable {
    /// The task, done by the caller at that time.
    public var task: TaskRecord
    /// The occurrence to create: nil when the task does not repeat, or when finishing it
    /// before (then reopened) already made this period's.
    public var next: NextOccurrence?
    /// In order.
    public var events: [TaskEvent]
}

/// The next occurrence of a repeating task, before it exists: copied from the finished
/// one, due a period on (`RepeatRule.next`), start and reminder moved by as many days, for
/// the next turn of the rotation (`Rotation`).
public struct NextOccurrence: Sendable, Equatable {
    public var room: Int64?
    public var owner: Int64?
    public var title: String
    public var notes: String?
    public var points: Int
    public var estimate: Double?
    public var parent: Int64?
    public var creator: Int64
    public var due: String
    public var start: String?
    public var remind: String?
    public var repeatRule: String?
    public var rotate: String?
    public var repeatDay: Int?
    /// Who takes it: a name the caller's `isAssignable` accepted, or nobody.
    public var assignee: String?
}

/// The rules of a task's life: finishing (with its next occurrence), reopening, progress,
/// and what is stored when it changes. Pure: the handler looks things up, calls these, and
/// persists what they return.
public enum TaskLifecycle {
    /// TASK DONE. `madeBefore`: the next occurrence an earlier finish made still exists.
    /// `isAssignable` tells whether a name may still take the task (a member of its room).
    public static func finish(_ task: TaskRecord, by account: (id: Int64, name: String), at time: String, now: Date,
                              madeBefore: Bool, calendar: Calendar = .current,
                              isAssignable: (String) throws -> Bool) throws -> Finishing {
        guard !task.done else { throw DomainError.alreadyDone(task.id) }
        var done = task
        done.finish(by: account, at: time)
        let next = madeBefore ? nil : try nextOccurrence(of: done, now: now, calendar: calendar, isAssignable: isAssignable)
        return Finishing(task: done, next: next, events: next == nil ? [.finished] : [.finished, .nextOccurrenceAdded])
    }

    /// The occurrence after a finished repeating task (nil when it does not repeat).
    public static func nextOccurrence(of task: TaskRecord, now: Date, calendar: Calendar = .current,
                                      isAssignable: (String) throws -> Bool) rethrows -> NextOccurrence? {
        guard let raw = task.repeatRule, let rule = RepeatRule(stored: raw) else { return nil }
        let occurrence = rule.next(after: task.due.flatMap(When.init(stored:)), anchorDay: task.repeatDay, now: now, calendar: calendar)
        var start: String?
        var remind: String?
        if let days = occurrence.daysMoved {
            start = task.start.flatMap(When.init(stored:))?.shifted(byDays: days, calendar: calendar).stored
            remind = task.remind.flatMap(When.init(stored:))?.shifted(byDays: days, calendar: calendar).stored
        }
        let names = task.rotate?.split(separator: ",").map(String.init) ?? []
        let assignee = try Rotation.nextAssignee(in: names, previous: task.assignee, isMember: isAssignable)
        return NextOccurrence(room: task.room, owner: task.ownerID, title: task.title, notes: task.notes, points: task.points,
                              estimate: task.estimate, parent: task.parent, creator: task.creatorID,
                              due: occurrence.due.stored, start: start, remind: remind, repeatRule: task.repeatRule,
                              rotate: task.rotate, repeatDay: occurrence.anchorDay, assignee: assignee)
    }

    /// TASK REOPEN: open again, with the progress it had before it was finished.
    public static func reopen(_ task: TaskRecord) throws(DomainError) -> TaskRecord {
        guard task.done else { throw .notDone(task.id) }
        var open = task
        open.finish(by: nil, at: nil)
        return open
    }

    /// TASK PROGRESS: only an open task without subtasks (a parent's comes from them).
    public static func setProgress(_ task: TaskRecord, to percent: Int) throws(DomainError) -> TaskRecord {
        guard !task.done else { throw .progressOfDoneTask(task.id) }
        guard task.computedProgress == nil else { throw .progressFromSubtasks(task.id) }
        var moved = task
        moved.progress = percent
        return moved
    }

    /// A due set by hand: the monthly series starts again on its own day.
    public static func setDue(_ task: inout TaskRecord, to due: String?) {
        task.due = due
        task.repeatDay = nil
    }

    /// A new repeat rule starts its series afresh.
    public static func setRepeat(_ task: inout TaskRecord, to rule: String?) {
        task.repeatRule = rule
        task.repeatDay = nil
    }

    /// The task as it is to be stored: its notice times worked out from its dates, and a
    /// notice already sent owed again only where its time moved.
    public static func readyToStore(_ task: TaskRecord, calendar: Calendar = .current) -> ReadyTask {
        var stored = task
        stored.notices = task.notices.rearmed(to: task.noticeTimes(calendar: calendar))
        return ReadyTask(stored)
    }
}

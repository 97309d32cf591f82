import Foundation

/// A task row with names resolved. Dates are stored as text: `YYYY-MM-DD` for a date
/// alone, RFC 3339 UTC for a time.
public struct TaskRecord: Sendable, Equatable {
    public let id: Int64
    public let room: Int64?
    public let roomName: String?
    /// The personal task's owner (nil for a room task).
    public let ownerID: Int64?
    public var title: String
    public var notes: String?
    public var done: Bool
    /// The stored progress; for a parent, `computedProgress` wins.
    public var progress: Int
    public private(set) var assignee: String?
    public private(set) var assigneeID: Int64?
    public let creator: String
    public let creatorID: Int64
    public var due: String?
    public var start: String?
    public var estimate: Double?
    public var points: Int
    public var parent: Int64?
    public var repeatRule: String?
    public var rotate: String?
    public var remind: String?
    public let created: String
    public var doneAt: String?
    public private(set) var doneBy: String?
    public private(set) var doneByID: Int64?
    /// Progress from subtasks weighted by points, when the task has subtasks.
    public var computedProgress: Int?
    /// The occurrence finishing this one made (a repeating task makes one per period,
    /// however often it is reopened and finished); nil once that task is deleted.
    public var nextOccurrence: Int64?
    /// The day of the month a monthly series keeps when this occurrence had to fall
    /// earlier (31 Jan, then 28 Feb with 31 here); nil means its due's own day.
    public var repeatDay: Int?
    /// The progress it had when last finished, given back when it is reopened.
    public var reopenProgress: Int?
    /// Its notice times and which notices went out, as last stored.
    public var notices: TaskNotices

    public init(id: Int64, room: Int64?, roomName: String?, ownerID: Int64?, title: String, notes: String?, done: Bool,
                progress: Int, assignee: String?, assigneeID: Int64? = nil, creator: String, creatorID: Int64, due: String?,
                start: String?, estimate: Double?, points: Int, parent: Int64?, repeatRule: String?, rotate: String?,
                remind: String?, created: String, doneAt: String?, doneBy: String?, doneByID: Int64? = nil,
                computedProgress: Int? = nil, nextOccurrence: Int64? = nil, repeatDay: Int? = nil,
                reopenProgress: Int? = nil, notices: TaskNotices = TaskNotices()) {
        self.id = id
        self.room = room
        self.roomName = roomName
        self.ownerID = ownerID
        self.title = title
        self.notes = notes
        self.done = done
        self.progress = progress
        self.assignee = assignee
        self.assigneeID = assigneeID
        self.creator = creator
        self.creatorID = creatorID
        self.due = due
        self.start = start
        self.estimate = estimate
        self.points = points
        self.parent = parent
        self.repeatRule = repeatRule
        self.rotate = rotate
        self.remind = remind
        self.created = created
        self.doneAt = doneAt
        self.doneBy = doneBy
        self.doneByID = doneByID
        self.computedProgress = computedProgress
        self.nextOccurrence = nextOccurrence
        self.repeatDay = repeatDay
        self.reopenProgress = reopenProgress
        self.notices = notices
    }

    public var effectiveProgress: Int { Self.effectiveProgress(done: done, computed: computedProgress, progress: progress) }

    /// What a task's progress counts as: 100 once done, else its roll-up from subtasks
    /// when it has any, else its own.
    public static func effectiveProgress(done: Bool, computed: Int?, progress: Int) -> Int {
        done ? 100 : (computed ?? progress)
    }

    /// Gives the task to an account (id and name together), or to nobody.
    public mutating func assign(to account: (id: Int64, name: String)?) {
        assigneeID = account?.id
        assignee = account?.name
    }

    /// Marks it done by an account now, or (nil) open again. Finishing keeps the progress
    /// it had, and reopening gives it back.
    public mutating func finish(by account: (id: Int64, name: String)?, at time: String?) {
        if account != nil && !done { reopenProgress = progress }
        if account == nil && done { progress = reopenProgress ?? progress }
        done = account != nil
        doneByID = account?.id
        doneBy = account?.name
        doneAt = account == nil ? nil : time
        if done { progress = 100 }
    }

    /// When the scheduler should tell people about this task: it is due, its reminder
    /// time, and the end of its plan (start + estimate days). Nil where not set.
    public func noticeTimes(calendar: Calendar = .current) -> (due: Date?, remind: Date?, behind: Date?) {
        let due = self.due.flatMap(When.init(stored:))?.dueInstant(calendar: calendar)
        let remind = self.remind.flatMap(When.init(stored:))?.instant(dateOnlyAt: 9, 0, calendar: calendar)
        let start = self.start.flatMap(When.init(stored:))?.instant(dateOnlyAt: 0, 0, calendar: calendar)
        return (due, remind, behindInstant(start: start, progress: progress))
    }

    /// The end of its plan, given the moment its start stands for: start + estimate days,
    /// in whole seconds as notice times are stored. Nil without both, and nil once it is
    /// finished or at 100 %: such a task is never behind. The one `behind` rule:
    /// `TaskTiming.isBehind` asks it with the progress people see (a parent's from its
    /// subtasks), `noticeTimes` with the task's own, since a parent's roll-up changes
    /// without its row being written; the scheduler asks `isBehind` again before it speaks.
    /// Reaching 100 % clears the stored moment and falling back re-arms it.
    public func behindInstant(start: Date?, progress: Int) -> Date? {
        guard !done, progress < 100, let estimate, let start else { return nil }
        return start.addingTimeInterval((estimate * 86400).rounded(.down))
    }
}

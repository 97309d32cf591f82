/// A parent task's progress, rolled up from its subtasks: their effective progress (a
/// done one counts 100) weighted by points, rounded to the nearest percent; a plain
/// average when no subtask carries points. One level: a subtask counts its own stored
/// progress, never a roll-up of subtasks of its own.
///
/// The engines do not work it out. For every task they read they sum its subtasks' stored
/// fields (`ProgressSums`: counts, points, progress; for a whole page of tasks in one
/// statement) and hand the sums to `percent(_:)`, as they hand `RoomProgress.Totals` to
/// `RoomProgress.percent(_:)` for the bar.
public enum SubtaskProgress {
    /// Nil for a task without subtasks: its own progress stands.
    public static func percent(of subtasks: [TaskRecord]) -> Int? {
        percent(ProgressSums(of: subtasks))
    }

    /// The roll-up from its subtasks' sums; nil when there are none.
    public static func percent(_ subtasks: ProgressSums) -> Int? {
        guard subtasks.tasks > 0 else { return nil }
        guard subtasks.points > 0 else { return subtasks.effectiveProgress / subtasks.tasks }
        return (subtasks.effectiveWeightedProgress + subtasks.points / 2) / subtasks.points
    }
}

/// Sums over some tasks' own stored fields, split by done as a store reads them in one
/// pass (`count`, `sum` with a filter): facts, no rule. What a done task is worth, and
/// what the sums come to, is decided here and by `SubtaskProgress` and `RoomProgress`.
public struct ProgressSums: Equatable, Sendable {
    public var tasks = 0
    public var done = 0
    public var points = 0
    /// The points of the done ones.
    public var donePoints = 0
    /// The open ones' stored progress.
    public var openProgress = 0
    /// The open ones' stored progress times their points.
    public var openWeightedProgress = 0

    public init(tasks: Int = 0, done: Int = 0, points: Int = 0, donePoints: Int = 0, openProgress: Int = 0,
                openWeightedProgress: Int = 0) {
        self.tasks = tasks
        self.done = done
        self.points = points
        self.donePoints = donePoints
        self.openProgress = openProgress
        self.openWeightedProgress = openWeightedProgress
    }

    /// The same sums over records, their own stored progress (not a roll-up of theirs).
    public init(of tasks: [TaskRecord]) {
        self.init()
        for task in tasks {
            self.tasks += 1
            points += task.points
            if task.done {
                done += 1
                donePoints += task.points
            } else {
                openProgress += task.progress
                openWeightedProgress += task.progress * task.points
            }
        }
    }

    /// Each one's progress, a done one counting 100, summed.
    public var effectiveProgress: Int { 100 * done + openProgress }

    /// Each one's progress times its points, a done one counting 100, summed.
    public var effectiveWeightedProgress: Int { 100 * donePoints + openWeightedProgress }
}

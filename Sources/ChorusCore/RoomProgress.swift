import Foundation

/// A room's progress: its top-level tasks' progress weighted by points. Tasks count while
/// open and for a week after they are done, so the bar tracks what the household is doing
/// now rather than creeping to 100% with months of finished chores.
///
/// That week is the household's "this week" everywhere: the bar's and STATS's week
/// columns (done and points in the last 7 days) both start at `windowStart(now:)`, and the
/// engines are handed that instant rather than working out a week of their own.
public enum RoomProgress {
    /// How long a finished task still counts.
    public static let window: TimeInterval = 7 * 86400

    /// The oldest finishing time (as stored) that still counts at `now`: the start of the
    /// week for the bar and for STATS.
    public static func windowStart(now: Date) -> String {
        Timestamp.rfc3339(now.addingTimeInterval(-window))
    }

    /// Whether a task finished at `doneAt` (as stored) was finished this week, the week
    /// starting at `since`: at or after it, to the second. The engines compare the stored
    /// `done_at` with `since` the same way (`done_at >= since`), the text forms ordering as
    /// the instants do.
    public static func isThisWeek(doneAt: String?, since: String) -> Bool {
        guard let doneAt else { return false }
        return doneAt >= since
    }

    /// Whether the bar counts this task: top-level, and open or finished this week.
    public static func counts(_ task: TaskRecord, since: String) -> Bool {
        task.parent == nil && (!task.done || isThisWeek(doneAt: task.doneAt, since: since))
    }

    /// The bar at `now` over a room's tasks: those it counts, by `percent(of:)`.
    public static func percent(of tasks: [TaskRecord], now: Date) -> Int {
        let since = windowStart(now: now)
        return percent(of: tasks.filter { counts($0, since: since) })
    }

    /// What the percentage is made of, summed over the counted tasks: the store sums these
    /// in SQL rather than reading every task of a room for its bar.
    public struct Totals: Equatable, Sendable {
        public var tasks = 0
        public var points = 0
        /// Each task's effective progress times its points.
        public var weightedProgress = 0
        /// Each task's effective progress (used when no task carries points).
        public var progress = 0

        public init(tasks: Int = 0, points: Int = 0, weightedProgress: Int = 0, progress: Int = 0) {
            self.tasks = tasks
            self.points = points
            self.weightedProgress = weightedProgress
            self.progress = progress
        }
    }

    public static func percent(of tasks: [TaskRecord]) -> Int {
        var totals = Totals()
        for task in tasks where task.parent == nil {
            totals.tasks += 1
            totals.points += task.points
            totals.weightedProgress += task.effectiveProgress * task.points
            totals.progress += task.effectiveProgress
        }
        return percent(totals)
    }

    public static func percent(_ totals: Totals) -> Int {
        guard totals.tasks > 0 else { return 0 }
        guard totals.points > 0 else { return totals.progress / totals.tasks }
        return (totals.weightedProgress + totals.points / 2) / totals.points
    }
}

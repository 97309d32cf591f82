/// The bar from what a store reads for it, rather than from records: the sums the
/// engines return, the percentages decided here.
extension RoomProgress {
    /// A counted task that has subtasks, as the store reads it for the bar: its own
    /// fields and its subtasks' sums.
    public struct Parent: Equatable, Sendable {
        public var done: Bool
        public var points: Int
        public var progress: Int
        public var subtasks: ProgressSums

        public init(done: Bool, points: Int, progress: Int, subtasks: ProgressSums) {
            self.done = done
            self.points = points
            self.progress = progress
            self.subtasks = subtasks
        }

        /// `TaskRecord.effectiveProgress` for it: done 100, else the roll-up.
        public var effectiveProgress: Int {
            TaskRecord.effectiveProgress(done: done, computed: SubtaskProgress.percent(subtasks), progress: progress)
        }
    }

    /// The totals and how many are open, over the counted tasks: those without subtasks
    /// summed (`plain`), and the parents one by one, each by its roll-up.
    public static func totals(plain: ProgressSums, parents: [Parent]) -> (totals: Totals, open: Int) {
        var totals = Totals(tasks: plain.tasks, points: plain.points, weightedProgress: plain.effectiveWeightedProgress,
                            progress: plain.effectiveProgress)
        var open = plain.tasks - plain.done
        for parent in parents {
            let progress = parent.effectiveProgress
            totals.tasks += 1
            totals.points += parent.points
            totals.weightedProgress += progress * parent.points
            totals.progress += progress
            if !parent.done { open += 1 }
        }
        return (totals, open)
    }

    /// One row of a store's read for the bar: the counted tasks without subtasks summed
    /// (`isParent` false), or one counted parent, `own` its one-task sum and `progress`
    /// its stored progress, with its subtasks' sums. Facts only; `totals(_:)` decides.
    public struct BarRow: Equatable, Sendable {
        public var isParent: Bool
        public var own: ProgressSums
        public var progress: Int
        public var subtasks: ProgressSums

        public init(isParent: Bool, own: ProgressSums, progress: Int, subtasks: ProgressSums) {
            self.isParent = isParent
            self.own = own
            self.progress = progress
            self.subtasks = subtasks
        }
    }

    /// The totals and how many are open, from the rows a store read for the bar.
    public static func totals(_ rows: [BarRow]) -> (totals: Totals, open: Int) {
        var plain = ProgressSums()
        var parents: [Parent] = []
        for row in rows {
            if row.isParent {
                parents.append(Parent(done: row.own.done > 0, points: row.own.points, progress: row.progress, subtasks: row.subtasks))
            } else {
                plain = row.own
            }
        }
        return totals(plain: plain, parents: parents)
    }
}

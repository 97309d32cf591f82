/// A parent task's progress, rolled up from its subtasks: their effective progress (a
/// done one counts 100) weighted by points, rounded to the nearest percent; a plain
/// average when no subtask carries points. The store computes the same in SQL for every
/// task it reads (`TaskSQL.subtaskProgress`), and a store test holds the two together.
public enum SubtaskProgress {
    /// Nil for a task without subtasks: its own progress stands.
    public static func percent(of subtasks: [TaskRecord]) -> Int? {
        guard !subtasks.isEmpty else { return nil }
        var points = 0
        var weighted = 0
        var plain = 0
        for task in subtasks {
            let progress = task.done ? 100 : task.progress
            points += task.points
            weighted += progress * task.points
            plain += progress
        }
        guard points > 0 else { return plain / subtasks.count }
        return (weighted + points / 2) / points
    }
}

/// A room's progress: its top-level tasks' progress weighted by points. Tasks count while
/// open and for a week after they are done, so the bar tracks what the household is doing
/// now rather than creeping to 100% with months of finished chores.
public enum RoomProgress {
    public static func percent(of tasks: [TaskRecord]) -> Int {
        let counted = tasks.filter { $0.parent == nil }
        guard !counted.isEmpty else { return 0 }
        let weight = counted.reduce(0) { $0 + $1.points }
        if weight == 0 {
            return counted.reduce(0) { $0 + $1.effectiveProgress } / counted.count
        }
        let sum = counted.reduce(0) { $0 + $1.effectiveProgress * $1.points }
        return (sum + weight / 2) / weight
    }
}

/// The values a task's options may take (TASK ADD/EDIT `key=value`), and the rules that
/// link it to others: subtasks and rotations.
public enum TaskFields {
    public static let maxTitle = 200
    public static let maxNotes = 4000
    public static let estimateDays = 0.0...3650.0
    public static let points = 0...1000
    public static let rotationSize = 1...50

    public static func title(_ raw: String) throws(DomainError) -> String {
        try FieldText.oneLine(raw, "a title", maxCharacters: maxTitle)
    }

    /// `estimate=DAYS`; empty clears it.
    public static func estimate(_ raw: String) throws(DomainError) -> Double? {
        guard !raw.isEmpty else { return nil }
        guard let days = Double(raw), estimateDays.contains(days) else { throw .badEstimate(raw) }
        return days
    }

    /// `points=N`; empty is the default, 1.
    public static func points(_ raw: String) throws(DomainError) -> Int {
        guard !raw.isEmpty else { return 1 }
        guard let value = Int(raw), points.contains(value) else { throw .badPoints(raw) }
        return value
    }

    /// `parent=T` or `parent=#T`.
    public static func parentID(_ raw: String) throws(DomainError) -> Int64 {
        let digits = raw.hasPrefix("#") ? String(raw.dropFirst()) : raw
        guard let id = Int64(digits) else { throw .parentNotATask(raw) }
        return id
    }

    /// A parent is another top-level task of the same room (or the same owner's personal
    /// tasks), and a task with subtasks of its own cannot become one: subtasks go one level deep.
    public static func requireParent(_ parent: TaskRecord, for task: TaskRecord, taskHasSubtasks: () throws -> Bool) throws {
        guard parent.id != task.id else { throw DomainError.ownParent }
        guard parent.room == task.room, parent.ownerID == task.ownerID else { throw DomainError.parentInOtherRoom(parent.id) }
        guard parent.parent == nil else { throw DomainError.parentIsSubtask(parent.id) }
        guard try !taskHasSubtasks() else { throw DomainError.hasSubtasks(task.id) }
    }

    /// Only a room task has people to rotate among.
    public static func requireRotatable(_ task: TaskRecord) throws(DomainError) {
        guard task.room != nil else { throw .personalRotation }
    }

    /// Adds the next member to a rotation being read, each once.
    public static func addTurn(_ name: String, to names: inout [String]) throws(DomainError) {
        guard !names.contains(name) else { throw .twiceInRotation(name) }
        names.append(name)
    }

    /// The stored rotation: 1-50 names in turn order.
    public static func rotation(_ names: [String]) throws(DomainError) -> String {
        guard rotationSize.contains(names.count) else { throw .rotationSize }
        return names.joined(separator: ",")
    }
}

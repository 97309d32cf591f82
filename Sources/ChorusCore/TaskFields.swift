/// The rules of a task's fields that need more than the request (the parser has checked
/// each option's form and range, `TaskOption`): titles, subtasks and rotations.
public enum TaskFields {
    public static let maxTitle = 200
    public static let maxNotes = 4000
    public static let rotationSize = 1...50

    public static func title(_ raw: String) throws(DomainError) -> String {
        try FieldText.oneLine(raw, "a title", maxCharacters: maxTitle)
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

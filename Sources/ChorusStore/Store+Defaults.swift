import ChorusCore

/// What an engine may do in fewer steps, done with the plain calls.
extension Store {
    public func updateTaskReadingBack(_ task: ReadyTask) throws -> TaskRecord? {
        try updateTask(task)
        return try self.task(id: task.record.id)
    }
}

/// A task as it may be stored: its notice times worked out from its dates, and a notice
/// already sent owed again only where its time moved. Only `TaskLifecycle.readyToStore`
/// makes one, so a store (of any engine) is never handed a task whose notices nobody
/// worked out: it writes what it is given.
public struct ReadyTask: Sendable {
    public let record: TaskRecord

    init(_ record: TaskRecord) {
        self.record = record
    }
}

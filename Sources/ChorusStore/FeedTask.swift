import ChorusCore

/// A task as a calendar feed shows it: the record, its revision (bumped by the store
/// whenever a field the feed shows changes: `CalendarFeedRules.shownFields`) and when that
/// last happened (unix seconds; nil while unchanged since it was made).
public struct FeedTask: Sendable {
    public let task: TaskRecord
    public let revision: Int
    public let changedAt: Int64?

    public init(task: TaskRecord, revision: Int, changedAt: Int64?) {
        self.task = task
        self.revision = revision
        self.changedAt = changedAt
    }
}

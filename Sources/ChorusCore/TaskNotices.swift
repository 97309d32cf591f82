import Foundation

/// When the scheduler speaks up about a task (unix seconds: due, reminder, end of plan)
/// and which of those notices it has sent.
public struct TaskNotices: Sendable, Equatable {
    public var dueAt: Int64?
    public var remindAt: Int64?
    public var behindAt: Int64?
    public var overdueSent = false
    public var remindSent = false
    public var behindSent = false

    public init(dueAt: Int64? = nil, remindAt: Int64? = nil, behindAt: Int64? = nil,
                overdueSent: Bool = false, remindSent: Bool = false, behindSent: Bool = false) {
        self.dueAt = dueAt
        self.remindAt = remindAt
        self.behindAt = behindAt
        self.overdueSent = overdueSent
        self.remindSent = remindSent
        self.behindSent = behindSent
    }

    /// The notices for these times: a notice already sent is owed again only when its
    /// time moves (a moved due date re-arms its overdue notice; an unchanged one does not
    /// repeat it).
    public func rearmed(to times: (due: Date?, remind: Date?, behind: Date?)) -> TaskNotices {
        let (due, remind, behind) = (Self.seconds(times.due), Self.seconds(times.remind), Self.seconds(times.behind))
        return TaskNotices(dueAt: due, remindAt: remind, behindAt: behind,
                           overdueSent: overdueSent && due == dueAt,
                           remindSent: remindSent && remind == remindAt,
                           behindSent: behindSent && behind == behindAt)
    }

    /// Whole seconds, rounded down, as stored and compared.
    public static func seconds(_ date: Date?) -> Int64? {
        date.map { Int64($0.timeIntervalSince1970.rounded(.down)) }
    }
}

/// What a notice is about, as `NOTIFY kinds=` names it (CONTRACT §10), and the event name
/// its push payload carries.
public enum NotifyKind: String, CaseIterable, Sendable, Comparable {
    case reminder, overdue, behind, assigned, comment, dm, mention

    /// The payload's `event` (CONTRACT §10).
    public var eventName: String {
        switch self {
        case .reminder: "task.reminder"
        case .overdue: "task.overdue"
        case .behind: "task.behind"
        case .assigned: "task.assigned"
        case .comment: "comment"
        case .dm: "dm"
        case .mention: "mention"
        }
    }

    public static func < (lhs: NotifyKind, rhs: NotifyKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension NotifyKind {
    /// Push's `Urgency` (RFC 8030 §5.3): a reminder or overdue chore should wake a phone;
    /// the rest may wait for it to be awake anyway.
    public var urgency: String {
        switch self {
        case .reminder, .overdue: "high"
        case .behind, .assigned, .comment, .dm, .mention: "normal"
        }
    }

    /// Push's `TTL`, in seconds: how long a push service keeps it for a phone that is off.
    /// A reminder a day late is noise; a message is still worth reading in three days.
    public var timeToLive: Int {
        switch self {
        case .reminder, .overdue, .behind: 24 * 3600
        case .assigned, .comment, .dm, .mention: 3 * 24 * 3600
        }
    }
}

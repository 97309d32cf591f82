/// Which notice the scheduler owes for a task.
public enum NoticeKind: String, Sendable, CaseIterable {
    case overdue
    case reminder
    case behind

    /// The event each kind fires.
    public var eventName: String {
        switch self {
        case .overdue: "task.overdue"
        case .reminder: "task.reminder"
        case .behind: "task.behind"
        }
    }

    /// An invitation to a room (CONTRACT §11) is held for an absent invitee like a notice.
    public static let invitationEventName = "room.invited"

    /// Whether an event of this name is held for the next login when its audience is away:
    /// a notice, or an invitation (read back from a shared log).
    public static func isNotice(eventNamed name: String) -> Bool {
        // Most events are chat: one prefix check, on the tail's path for every event.
        if name.hasPrefix("task.") { return allCases.contains { $0.eventName == name } }
        return name == invitationEventName
    }

    /// The task columns holding when this notice is owed and whether it was sent, the same
    /// in every engine's schema: fixed names an engine may put in its SQL, never a value.
    public var columns: (time: String, sent: String) {
        switch self {
        case .overdue: ("due_at", "overdue_sent")
        case .reminder: ("remind_at", "remind_sent")
        case .behind: ("behind_at", "behind_sent")
        }
    }
}

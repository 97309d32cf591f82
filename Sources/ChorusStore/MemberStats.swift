import ChorusCore

/// Per-member figures for STATS.
public struct MemberStats: Sendable, Equatable {
    public let name: String
    public let role: Role
    public var done = 0
    public var doneWeek = 0
    public var open = 0
    public var overdue = 0
    public var points = 0
    public var pointsWeek = 0

    public init(name: String, role: Role) {
        self.name = name
        self.role = role
    }
}

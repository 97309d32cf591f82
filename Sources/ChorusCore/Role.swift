/// A member's standing in a room. The order matters: each role can do what the ones
/// below it can.
public enum Role: String, Sendable, Comparable, CaseIterable {
    case member
    case admin
    case owner

    private var rank: Int {
        switch self {
        case .member: return 0
        case .admin: return 1
        case .owner: return 2
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}

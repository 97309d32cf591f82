/// Sessions a committed command closes: the accounts' (ADMIN KICK, ADMIN DISABLE) with the
/// reason they are told, or those that logged in with a revoked token (TOKEN REVOKE).
/// It rides the event log between events, so every node closes them at the same point
/// of the one order.
public struct SessionControl: Sendable, Equatable {
    public let closeUsers: [Int64]
    public let reason: String
    public let closeToken: Int64?

    public init(closeUsers: [Int64], reason: String, closeToken: Int64?) {
        self.closeUsers = closeUsers
        self.reason = reason
        self.closeToken = closeToken
    }

    /// Whether it closes anything.
    public var isEmpty: Bool { closeUsers.isEmpty && closeToken == nil }
}

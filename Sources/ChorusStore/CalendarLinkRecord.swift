import Foundation

/// A calendar feed's link as the store holds it: whose it is, which scope (a room, or nil
/// for `me`), and the facts a request needs to decide whether it still serves. Never the
/// secret: the store keeps only its SHA-256 digest.
public struct CalendarLinkRecord: Sendable, Equatable {
    public let owner: Int64
    public let ownerName: String
    /// Nil for the `me` feed.
    public let room: Int64?
    /// The room's name, for the feed's title (nil for `me`).
    public let roomName: String?
    public let ownerDisabled: Bool
    /// Whether the owner is a member of `room` now; nil for `me`.
    public let ownerIsMember: Bool?
    /// The digest of the body this link last served, and when it first served it.
    public let lastBody: (digest: String, at: Date)?

    public init(owner: Int64, ownerName: String, room: Int64?, roomName: String?, ownerDisabled: Bool,
                ownerIsMember: Bool?, lastBody: (digest: String, at: Date)?) {
        self.owner = owner
        self.ownerName = ownerName
        self.room = room
        self.roomName = roomName
        self.ownerDisabled = ownerDisabled
        self.ownerIsMember = ownerIsMember
        self.lastBody = lastBody
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.owner == rhs.owner && lhs.ownerName == rhs.ownerName && lhs.room == rhs.room && lhs.roomName == rhs.roomName
            && lhs.ownerDisabled == rhs.ownerDisabled && lhs.ownerIsMember == rhs.ownerIsMember
            && lhs.lastBody?.digest == rhs.lastBody?.digest && lhs.lastBody?.at == rhs.lastBody?.at
    }
}

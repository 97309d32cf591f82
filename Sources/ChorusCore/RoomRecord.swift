/// A room as one member sees it.
public struct RoomRecord: Sendable, Equatable {
    public let id: Int64
    public let name: String
    /// The caller's role.
    public let role: Role
    public let progress: Int
    public let open: Int
    /// What others said in it that the member has not marked read (`ReadMarker`).
    public let unread: Int

    public init(id: Int64, name: String, role: Role, progress: Int, open: Int, unread: Int = 0) {
        self.id = id
        self.name = name
        self.role = role
        self.progress = progress
        self.open = open
        self.unread = unread
    }

    /// The same room with another unread count: what a READ leaves, or a joining's nothing.
    public func with(unread: Int) -> RoomRecord {
        RoomRecord(id: id, name: name, role: role, progress: progress, open: open, unread: unread)
    }
}

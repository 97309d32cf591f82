/// A room and the caller's role in it: all a permission check needs, without the
/// progress figures that cost a look at every task.
public struct RoomAccess: Sendable, Equatable {
    public let id: Int64
    public let name: String
    public let role: Role

    public init(id: Int64, name: String, role: Role) {
        self.id = id
        self.name = name
        self.role = role
    }
}

public struct MemberRecord: Sendable, Equatable {
    public let userID: Int64
    public let name: String
    public let role: Role

    public init(userID: Int64, name: String, role: Role) {
        self.userID = userID
        self.name = name
        self.role = role
    }
}

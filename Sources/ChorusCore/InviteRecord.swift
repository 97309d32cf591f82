public struct InviteRecord: Sendable, Equatable {
    public let code: String
    public let room: Int64
    public let usesLeft: Int?
    public let expires: String?
    public let createdBy: String
    public let created: String

    public init(code: String, room: Int64, usesLeft: Int?, expires: String?, createdBy: String, created: String) {
        self.code = code
        self.room = room
        self.usesLeft = usesLeft
        self.expires = expires
        self.createdBy = createdBy
        self.created = created
    }
}

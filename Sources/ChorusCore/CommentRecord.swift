public struct CommentRecord: Sendable, Equatable {
    public let id: Int64
    public let task: Int64
    public let room: Int64?
    public let from: String
    public let text: String
    public let at: String

    public init(id: Int64, task: Int64, room: Int64?, from: String, text: String, at: String) {
        self.id = id
        self.task = task
        self.room = room
        self.from = from
        self.text = text
        self.at = at
    }
}

/// What a new task holds; the store gives it its id.
public struct TaskDraft: Sendable {
    public var room: Int64?
    public var owner: Int64?
    public var title: String
    public var notes: String?
    public var assignee: Int64?
    public var creator: Int64
    public var due: String?
    public var start: String?
    public var estimate: Double?
    public var points: Int
    public var parent: Int64?
    public var repeatRule: String?
    public var rotate: String?
    public var remind: String?
    public var created: String

    public init(room: Int64?, owner: Int64?, title: String, creator: Int64, created: String) {
        self.room = room
        self.owner = owner
        self.title = title
        self.creator = creator
        self.created = created
        self.points = 1
    }
}

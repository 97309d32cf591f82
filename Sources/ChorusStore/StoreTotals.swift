/// What server admins see of the whole server (ADMIN STATS).
public struct StoreTotals: Sendable, Equatable {
    public let accounts: Int
    public let rooms: Int
    public let tasks: Int
    public let openTasks: Int
    public let messages: Int
    /// The newest event id: how many events were ever recorded.
    public let events: Int

    public init(accounts: Int, rooms: Int, tasks: Int, openTasks: Int, messages: Int, events: Int) {
        self.accounts = accounts
        self.rooms = rooms
        self.tasks = tasks
        self.openTasks = openTasks
        self.messages = messages
        self.events = events
    }
}

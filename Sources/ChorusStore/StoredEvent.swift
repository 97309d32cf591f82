/// An event as the log keeps it, ready to be sent again (SYNC, notices at login).
public struct StoredEvent: Sendable, Equatable {
    public let id: Int64
    public let room: Int64?
    public let name: String
    public let by: String?
    public let at: String
    /// The payload fields as one JSON object.
    public let payload: String
    public let text: String

    public init(id: Int64, room: Int64?, name: String, by: String?, at: String, payload: String, text: String) {
        self.id = id
        self.room = room
        self.name = name
        self.by = by
        self.at = at
        self.payload = payload
        self.text = text
    }
}

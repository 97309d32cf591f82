/// A bot token as listed: never its secret.
public struct TokenRecord: Sendable, Equatable {
    public let id: Int64
    public let label: String
    public let created: String
    public let lastUsed: String?

    public init(id: Int64, label: String, created: String, lastUsed: String?) {
        self.id = id
        self.label = label
        self.created = created
        self.lastUsed = lastUsed
    }
}

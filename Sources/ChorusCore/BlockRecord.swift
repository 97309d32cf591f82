/// Someone a person blocked (BLOCK USER), and since when.
public struct BlockRecord: Sendable, Equatable {
    public let name: String
    public let since: String

    public init(name: String, since: String) {
        self.name = name
        self.since = since
    }
}

/// Why the `chorus` client stops early, with the exit status it promises: 2 for usage,
/// connection, certificate and login problems. Messages never carry a password or token.
public struct ClientFailure: Error, CustomStringConvertible {
    public let description: String
    public let status: Int32

    public init(_ description: String, status: Int32 = 2) {
        self.description = description
        self.status = status
    }
}

/// A store failure, in terms every engine can give and the server can answer: the
/// server turns the kind into a protocol code in one place (`AccountService.clientError`).
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A unique key is taken: that name, that member, that label already exists.
        case duplicate
        /// Another rule of the data would break (a reference to nothing, a value out of range).
        case constraint
        /// The row the operation names does not exist.
        case notFound
        /// No room left to write; reads still work.
        case full
        /// The store cannot be used now (I/O error, locked, closed, shutting down): nothing
        /// the client did, and later may work.
        case unavailable
        /// Anything else: a bug, or data the program does not understand.
        case failed
    }

    public let kind: Kind
    /// What a client may be told, when the store words it for this case ("name ann is
    /// taken"); nil when the engine's message is for the log only.
    public let reason: String?
    /// What was being done and the engine's own words, for the log.
    public let message: String
    /// Why, in the words an admin acts on ("authentication failed", "permission denied",
    /// "unreachable", "timeout"), when the engine can tell: a wrong password must not
    /// read like a database that is down.
    public let cause: String?

    public init(_ kind: Kind, reason: String? = nil, message: String? = nil, cause: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.message = message ?? reason ?? "\(kind)"
        self.cause = cause
    }

    /// The same failure, with what the caller was doing in front of the message.
    public func doing(_ context: String) -> StoreError {
        StoreError(kind, reason: reason, message: "\(context): \(message)", cause: cause)
    }

    public var description: String { "store error (\(cause ?? "\(kind)")): \(message)" }
}

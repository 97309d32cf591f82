import ChorusCore

/// The refusals a store words for the client, once for every engine: an engine throws
/// these, and the shared store tests hold each engine to the same words.
extension StoreError {
    /// `message`: the engine's own words, for the log.
    public static func nameTaken(_ name: String, message: String) -> StoreError {
        StoreError(.duplicate, reason: DomainError.nameTaken(name).message, message: message)
    }

    public static func alreadyMember(message: String) -> StoreError {
        StoreError(.duplicate, reason: "already a member", message: message)
    }

    public static func tokenLabelTaken(_ label: String, message: String) -> StoreError {
        StoreError(.duplicate, reason: "you already have a token labelled \(label)", message: message)
    }

    public static func noAccount(id: Int64) -> StoreError { StoreError(.notFound, reason: "no account with id \(id)") }

    /// The executor is closing: the job never ran.
    public static let shuttingDown = StoreError(.unavailable, reason: "shutting down")
}

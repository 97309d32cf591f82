/// Why getting a certificate failed, in words for a log line: which step, and what the
/// ACME server or the network said.
public struct ACMEError: Error, Sendable, CustomStringConvertible {
    /// The ACME problem type (`urn:ietf:params:acme:error:…`) when the server sent one.
    public let problemType: String?
    public let message: String

    public init(_ message: String, problemType: String? = nil) {
        self.message = message
        self.problemType = problemType
    }

    public var description: String { message }

    /// The server refused the nonce (RFC 8555 §6.5): the request is sent again with the
    /// nonce that came with the refusal.
    var isBadNonce: Bool { problemType == "urn:ietf:params:acme:error:badNonce" }
}

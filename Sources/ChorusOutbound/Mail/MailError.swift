/// Why a message was not accepted by the mail server. Its words name the server
/// (`smtps://host:port`) and the SMTP reply code, never the recipient or the message:
/// they go to logs.
public struct MailError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The host name did not resolve.
        case resolve
        /// Could not connect, or the connection broke before the server's last reply.
        case connection
        /// The connect timeout, total timeout or low-speed limit cut the exchange.
        case timedOut
        /// The server's certificate did not verify (or the CA file could not be read).
        case untrusted
        /// An `smtp://` server did not offer STARTTLS (or it failed): nothing was sent in clear.
        case startTLSMissing
        /// The server refused the user name and password (a 5xx reply to AUTH).
        case loginRefused
        /// A 4xx reply: the server asks to try again later.
        case deferred
        /// A 5xx reply to the sender, the recipient or the message: it will not take it.
        case refused
        /// Anything else libcurl reports.
        case other
    }

    public let kind: Kind
    /// `smtps://host:port` or `smtp://host:port`.
    public let server: String
    /// The server's last SMTP reply code, when it sent one that ended the exchange.
    public let replyCode: Int?
    public let detail: String

    public init(_ kind: Kind, server: String, replyCode: Int? = nil, _ detail: String) {
        self.kind = kind
        self.server = server
        self.replyCode = replyCode
        self.detail = detail
    }

    /// Worth trying again later: a 4xx, or a server or path that may recover. A 5xx, a
    /// refused login, a certificate that does not verify or a missing STARTTLS would fail
    /// the same way again.
    public var isTransient: Bool {
        switch kind {
        case .resolve, .connection, .timedOut, .deferred, .other: true
        case .untrusted, .startTLSMissing, .loginRefused, .refused: false
        }
    }

    public var description: String { "\(server): \(detail)" }
}

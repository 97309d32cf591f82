/// Why an outbound request got no HTTP response. Its text names the origin
/// (`scheme://host[:port]`) and never the path or query: a push endpoint's path is a
/// secret, and these words go to logs.
public struct OutboundError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The request itself is malformed (URL, header); nothing was sent.
        case invalidRequest
        /// Not https; nothing was sent.
        case schemeRefused
        /// Every address the host resolved to was refused by `AddressPolicy`.
        case addressRefused
        /// The host name did not resolve.
        case resolve
        /// Could not connect, or the connection broke before a whole response.
        case connection
        /// The connect timeout, total timeout or low-speed limit cut the transfer.
        case timedOut
        /// The server's certificate did not verify (or the CA file could not be read).
        case untrusted
        /// The response body was larger than the cap.
        case responseTooLarge
        /// Anything else libcurl reports.
        case other
    }

    public let kind: Kind
    /// `https://host[:port]`, or `-` when the URL could not be read.
    public let origin: String
    public let detail: String

    public init(_ kind: Kind, origin: String, _ detail: String) {
        self.kind = kind
        self.origin = origin
        self.detail = detail
    }

    /// Worth trying again later: the server or the path to it may recover. A refusal by
    /// policy, a bad request, a certificate that does not verify or an oversized answer
    /// would fail the same way again.
    public var isTransient: Bool {
        switch kind {
        case .resolve, .connection, .timedOut, .other: true
        case .invalidRequest, .schemeRefused, .addressRefused, .untrusted, .responseTooLarge: false
        }
    }

    /// Refused by the request-forgery guard rather than failed on the way.
    public var isPolicyRefusal: Bool {
        kind == .schemeRefused || kind == .addressRefused
    }

    public var description: String { "\(origin): \(detail)" }
}

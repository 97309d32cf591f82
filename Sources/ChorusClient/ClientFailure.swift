/// Why the `chorus` client stops early, with the exit status it promises: 2 for usage,
/// connection, certificate and login problems. Messages never carry a password or token.
public struct ClientFailure: Error, CustomStringConvertible {
    public let description: String
    public let status: Int32
    /// A network hiccup worth another try when reconnecting (refused, reset, timed out),
    /// as opposed to a certificate that fails its check or a usage mistake.
    public let isTransient: Bool

    public init(_ description: String, status: Int32 = 2, isTransient: Bool = false) {
        self.description = description
        self.status = status
        self.isTransient = isTransient
    }

    /// A transient failure as the reconnect notice words it: the system's reason (refused,
    /// timed out) without the address the notice already names, and a TLS failure as
    /// "the connection closed" whatever OpenSSL said.
    var transientReason: String {
        var reason = description
        if let colon = reason.range(of: ": ", options: .backwards) { reason = String(reason[colon.upperBound...]) }
        if description.contains("TLS") || description.contains("SSL") || reason.contains("error:") {
            return "the connection closed during the TLS handshake"
        }
        return reason
    }
}

/// The close codes the server sends (RFC 6455 §7.4.1).
public enum WebSocketCloseCode: UInt16, Sendable {
    case normal = 1000, goingAway = 1001, protocolError = 1002, unsupportedData = 1003, invalidPayload = 1007,
        policyViolation = 1008, messageTooBig = 1009, internalError = 1011

    /// Whether a peer may send `code` in a close frame (RFC 6455 §7.4 and IANA's registry):
    /// 1000–1003 and 1007–1014 are defined, 3000–4999 belong to libraries and applications.
    /// 1004 is reserved, 1005, 1006 and 1015 stand for "no code", "no close" and "TLS failed"
    /// and must never travel, the rest below 3000 is unassigned, and 5000 and up do not exist.
    public static func isAllowedOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}

/// The claims of a VAPID JWT (RFC 8292 §2): who may accept it (`aud`, the push service's
/// origin), until when (`exp`, seconds since 1970), and whom to contact (`sub`).
public struct VAPIDClaims: Sendable, Equatable, Decodable {
    public var audience: String
    public var expires: Int64
    public var subject: String

    public init(audience: String, expires: Int64, subject: String) {
        self.audience = audience
        self.expires = expires
        self.subject = subject
    }

    private enum CodingKeys: String, CodingKey {
        case audience = "aud", expires = "exp", subject = "sub"
    }

    /// RFC 8292 §2.1: a `mailto:` or `https:` URI.
    public static func isContact(_ subject: String) -> Bool {
        (subject.hasPrefix("mailto:") && subject.count > 7) || (subject.hasPrefix("https:") && subject.count > 6)
    }

    /// The claims as signed, members in a fixed order.
    var json: String {
        "{\"aud\":\(JSONText.quoted(audience)),\"exp\":\(expires),\"sub\":\(JSONText.quoted(subject))}"
    }
}

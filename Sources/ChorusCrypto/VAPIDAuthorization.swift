import Foundation

/// Makes the `Authorization` header value of a Web Push request (RFC 8292 §3):
/// `vapid t=JWT, k=PUBLIC KEY`, the JWT signed ES256 with the server's VAPID key.
public enum VAPIDAuthorization {
    /// RFC 8292 §2: `exp` must not be more than 24 hours after the request.
    public static let longestLifetime: TimeInterval = 24 * 3600
    /// The JWT header, fixed (RFC 8292 §2).
    static let headerJSON = "{\"typ\":\"JWT\",\"alg\":\"ES256\"}"

    /// The header value for a push to an endpoint whose origin is `audience` (see
    /// `VAPIDAudience`), valid from `now` for `lifetime` seconds (0 < lifetime ≤ 24 h).
    public static func headerValue(audience: String, subject: String, key: P256PrivateKey, now: Date,
                                   lifetime: TimeInterval = 12 * 3600) throws -> String {
        guard lifetime > 0, lifetime <= longestLifetime else { throw CryptoError("VAPID lifetime must be more than 0 and at most 24 hours") }
        guard VAPIDClaims.isContact(subject) else { throw CryptoError("VAPID subject must be a mailto: or https: URI") }
        guard !audience.isEmpty else { throw CryptoError("VAPID audience is empty") }
        let expires = Int64((now.timeIntervalSince1970 + lifetime).rounded(.down))
        return try headerValue(claims: VAPIDClaims(audience: audience, expires: expires, subject: subject), key: key)
    }

    /// Signs whatever claims it is given; internal so tests can make tokens the checks above refuse.
    static func headerValue(claims: VAPIDClaims, key: P256PrivateKey) throws -> String {
        let signingInput = Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(claims.json.utf8))
        let signature = try ES256.sign(Array(signingInput.utf8), with: key)
        return "vapid t=\(signingInput).\(Base64URL.encode(signature)), k=\(key.publicKey.base64URL)"
    }
}

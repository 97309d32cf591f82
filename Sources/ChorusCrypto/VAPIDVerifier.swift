import Foundation

/// Checks a `vapid t=…, k=…` header value as a push service does (RFC 8292 §3–4): the key is
/// the expected one, the ES256 signature holds, `aud` is this service's origin, `exp` is in
/// the future but not more than 24 hours away, and `sub` is a contact URI.
public enum VAPIDVerifier {
    /// The verified claims, or a CryptoError naming the first check that failed.
    public static func verify(_ headerValue: String, expectedKey: P256PublicKey, audience: String, now: Date) throws -> VAPIDClaims {
        let (token, keyText) = try parameters(of: headerValue)
        let key = try P256PublicKey(base64URL: keyText)
        guard key == expectedKey else { throw CryptoError("VAPID key k= is not the expected public key") }

        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw CryptoError("VAPID token is not a JWT of three parts") }
        let signature = try Base64URL.decode(String(parts[2]))
        try ES256.verify(signature, of: Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)), with: key)

        let header = try decodeJSON(JOSEHeaderFields.self, base64URL: String(parts[0]), what: "VAPID JWT header")
        guard header.alg == "ES256" else { throw CryptoError("VAPID JWT alg must be ES256") }
        guard header.typ == nil || header.typ == "JWT" else { throw CryptoError("VAPID JWT typ must be JWT") }
        let claims = try decodeJSON(VAPIDClaims.self, base64URL: String(parts[1]), what: "VAPID JWT claims")

        guard claims.audience == audience else { throw CryptoError("VAPID aud \(claims.audience) is not \(audience)") }
        let seconds = now.timeIntervalSince1970
        guard Double(claims.expires) > seconds else { throw CryptoError("VAPID token has expired") }
        guard Double(claims.expires) - seconds <= VAPIDAuthorization.longestLifetime else {
            throw CryptoError("VAPID exp is more than 24 hours ahead")
        }
        guard VAPIDClaims.isContact(claims.subject) else { throw CryptoError("VAPID sub is not a mailto: or https: URI") }
        return claims
    }

    /// `t` and `k` from `vapid t=…, k=…`: the scheme without case, parameters in any order,
    /// each exactly once, others ignored.
    static func parameters(of headerValue: String) throws -> (token: String, key: String) {
        let trimmed = headerValue.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }),
              trimmed[..<space].lowercased() == "vapid"
        else { throw CryptoError("Authorization is not of the vapid scheme") }
        var token: String?
        var key: String?
        for item in trimmed[space...].split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { throw CryptoError("vapid parameter without '=': \(pair)") }
            let name = pair[..<equals].lowercased()
            let value = String(pair[pair.index(after: equals)...])
            switch name {
            case "t":
                guard token == nil else { throw CryptoError("vapid t= given twice") }
                token = value
            case "k":
                guard key == nil else { throw CryptoError("vapid k= given twice") }
                key = value
            default:
                continue
            }
        }
        guard let token, let key else { throw CryptoError("vapid needs both t= and k=") }
        return (token, key)
    }

    private static func decodeJSON<T: Decodable>(_ type: T.Type, base64URL text: String, what: String) throws -> T {
        let bytes = try Base64URL.decode(text)
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw CryptoError("\(what) is not the expected JSON")
        }
    }
}

import Foundation
import Testing
@testable import ChorusCrypto

private let audience = "https://push.example.net"
private let subject = "mailto:push@example.com"
private let now = Date(timeIntervalSince1970: 1_700_000_000)

/// t= and k= of a header value we made, split without the code under test.
private func tokenAndKey(_ headerValue: String) -> (token: String, key: String) {
    let parts = headerValue.dropFirst("vapid t=".count).components(separatedBy: ", k=")
    return (parts[0], parts[1])
}

/// A header value we made verifies, and says what RFC 8292 asks: the fixed JWT header, the
/// claims, a 64-byte signature and the 65-byte key in k=.
@Test func vapidHeaderVerifies() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 3600)
    #expect(value.hasPrefix("vapid t="))
    let (token, keyText) = tokenAndKey(value)
    #expect(vectorBytes(keyText) == key.publicKey.uncompressedPoint)
    let parts = token.components(separatedBy: ".")
    #expect(parts.count == 3)
    #expect(String(decoding: vectorBytes(parts[0]), as: UTF8.self) == "{\"typ\":\"JWT\",\"alg\":\"ES256\"}")
    #expect(String(decoding: vectorBytes(parts[1]), as: UTF8.self)
        == "{\"aud\":\"https://push.example.net\",\"exp\":1700003600,\"sub\":\"mailto:push@example.com\"}")
    #expect(vectorBytes(parts[2]).count == 64)
    try ES256.verify(vectorBytes(parts[2]), of: Array((parts[0] + "." + parts[1]).utf8), with: key.publicKey)

    let claims = try VAPIDVerifier.verify(value, expectedKey: key.publicKey, audience: audience, now: now)
    #expect(claims == VAPIDClaims(audience: audience, expires: 1_700_003_600, subject: subject))
    // The default lifetime is inside the 24 hours, and a push service still accepts it a second before exp.
    let defaulted = try VAPIDAuthorization.headerValue(audience: audience, subject: "https://chorus.example/contact", key: key, now: now)
    let checked = try VAPIDVerifier.verify(defaulted, expectedKey: key.publicKey, audience: audience, now: now)
    _ = try VAPIDVerifier.verify(defaulted, expectedKey: key.publicKey, audience: audience,
                                 now: Date(timeIntervalSince1970: TimeInterval(checked.expires - 1)))
}

/// The scheme is read without case and the parameters in either order; anything else that
/// is not `vapid t=…, k=…` is refused.
@Test func vapidHeaderParsing() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now)
    let (token, keyText) = tokenAndKey(value)
    _ = try VAPIDVerifier.verify("Vapid k=\(keyText),t=\(token)", expectedKey: key.publicKey, audience: audience, now: now)
    for bad in ["", "vapid", "Bearer t=\(token), k=\(keyText)", "vapid t=\(token)", "vapid k=\(keyText)",
                "vapid t=\(token), t=\(token), k=\(keyText)", "vapid t=\(token), k=\(keyText), k=\(keyText)",
                "vapid t=\(token) k=\(keyText)", "vapid t=\(token).x, k=\(keyText)", "vapid t=, k=\(keyText)"] {
        #expect(throws: CryptoError.self, "\(bad)") { try VAPIDVerifier.verify(bad, expectedKey: key.publicKey, audience: audience, now: now) }
    }
}

/// A claim changed after signing, under the same signature, is refused.
@Test func vapidChangedClaimFails() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 3600)
    let (token, keyText) = tokenAndKey(value)
    let parts = token.components(separatedBy: ".")
    for claims in ["{\"aud\":\"https://evil.example\",\"exp\":1700003600,\"sub\":\"mailto:push@example.com\"}",
                   "{\"aud\":\"https://push.example.net\",\"exp\":1700007200,\"sub\":\"mailto:push@example.com\"}",
                   "{\"aud\":\"https://push.example.net\",\"exp\":1700003600,\"sub\":\"mailto:other@example.com\"}"] {
        let forged = "vapid t=\(parts[0]).\(vectorText(Array(claims.utf8))).\(parts[2]), k=\(keyText)"
        #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(forged, expectedKey: key.publicKey, audience: audience, now: now) }
    }
}

/// A token for another push service is refused there.
@Test func vapidWrongAudienceFails() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now)
    #expect(throws: CryptoError.self) {
        try VAPIDVerifier.verify(value, expectedKey: key.publicKey, audience: "https://push.example.net:8443", now: now)
    }
}

/// exp at or before now is expired; exp more than 24 hours ahead is refused, by the signer and
/// by the verifier (for a token signed anyway).
@Test func vapidExpiryRules() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 600)
    #expect(throws: CryptoError.self) {
        try VAPIDVerifier.verify(value, expectedKey: key.publicKey, audience: audience, now: now.addingTimeInterval(600))
    }
    #expect(throws: CryptoError.self) {
        try VAPIDVerifier.verify(value, expectedKey: key.publicKey, audience: audience, now: now.addingTimeInterval(7200))
    }
    #expect(throws: CryptoError.self) {
        try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 24 * 3600 + 1)
    }
    #expect(throws: CryptoError.self) {
        try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 0)
    }
    let day = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now, lifetime: 24 * 3600)
    _ = try VAPIDVerifier.verify(day, expectedKey: key.publicKey, audience: audience, now: now)
    let tooLong = try VAPIDAuthorization.headerValue(
        claims: VAPIDClaims(audience: audience, expires: 1_700_000_000 + 24 * 3600 + 1, subject: subject), key: key)
    #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(tooLong, expectedKey: key.publicKey, audience: audience, now: now) }
}

/// sub must be a mailto: or https: URI, on both sides.
@Test func vapidSubjectRules() throws {
    let key = try P256PrivateKey.generate()
    for bad in ["push@example.com", "http://example.com", "mailto:", ""] {
        #expect(throws: CryptoError.self, "\(bad)") {
            try VAPIDAuthorization.headerValue(audience: audience, subject: bad, key: key, now: now)
        }
        let signed = try VAPIDAuthorization.headerValue(
            claims: VAPIDClaims(audience: audience, expires: 1_700_000_600, subject: bad), key: key)
        #expect(throws: CryptoError.self, "\(bad)") { try VAPIDVerifier.verify(signed, expectedKey: key.publicKey, audience: audience, now: now) }
    }
}

/// Another key in k=, or the right k= with a signature by another key, is refused.
@Test func vapidWrongKeyFails() throws {
    let key = try P256PrivateKey.generate()
    let other = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now)
    #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(value, expectedKey: other.publicKey, audience: audience, now: now) }
    let (token, _) = tokenAndKey(value)
    let swapped = "vapid t=\(token), k=\(other.publicKey.base64URL)"
    #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(swapped, expectedKey: other.publicKey, audience: audience, now: now) }
    #expect(throws: CryptoError.self) {
        try VAPIDVerifier.verify("vapid t=\(token), k=BCVx", expectedKey: key.publicKey, audience: audience, now: now)
    }
}

/// The same signature in DER form (what OpenSSL makes before conversion) is refused: JOSE
/// allows only R || S.
@Test func vapidDERSignatureFails() throws {
    let key = try P256PrivateKey.generate()
    let value = try VAPIDAuthorization.headerValue(audience: audience, subject: subject, key: key, now: now)
    let (token, keyText) = tokenAndKey(value)
    let parts = token.components(separatedBy: ".")
    let der = try ECDSASignatureForm.der(fromRaw: vectorBytes(parts[2]))
    let derValue = "vapid t=\(parts[0]).\(parts[1]).\(vectorText(der)), k=\(keyText)"
    #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(derValue, expectedKey: key.publicKey, audience: audience, now: now) }
}

/// A JWT header with another alg is refused even when its signature holds.
@Test func vapidOtherAlgFails() throws {
    let key = try P256PrivateKey.generate()
    let header = vectorText(Array("{\"typ\":\"JWT\",\"alg\":\"none\"}".utf8))
    let claims = vectorText(Array(VAPIDClaims(audience: audience, expires: 1_700_000_600, subject: subject).json.utf8))
    let signature = vectorText(try ES256.sign(Array((header + "." + claims).utf8), with: key))
    let value = "vapid t=\(header).\(claims).\(signature), k=\(key.publicKey.base64URL)"
    #expect(throws: CryptoError.self) { try VAPIDVerifier.verify(value, expectedKey: key.publicKey, audience: audience, now: now) }
}

/// aud is the endpoint's origin: scheme and host lowercased, the default port left out.
@Test func vapidAudienceOfEndpoints() throws {
    #expect(try VAPIDAudience.of(endpoint: "https://push.example.net/wpush/v2/gAAAAABk") == "https://push.example.net")
    #expect(try VAPIDAudience.of(endpoint: "HTTPS://Push.Example.NET:443/x?y=1") == "https://push.example.net")
    #expect(try VAPIDAudience.of(endpoint: "https://127.0.0.1:8443/push/1") == "https://127.0.0.1:8443")
    #expect(try VAPIDAudience.of(endpoint: "https://[::1]:8443/push/1") == "https://[::1]:8443")
    #expect(try VAPIDAudience.of(endpoint: "http://localhost:80/p") == "http://localhost")
    for bad in ["", "push.example.net/x", "ftp://push.example.net/x", "https:///x", "not a url"] {
        #expect(throws: CryptoError.self, "\(bad)") { try VAPIDAudience.of(endpoint: bad) }
    }
}

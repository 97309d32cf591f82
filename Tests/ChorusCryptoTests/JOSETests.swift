import Foundation
import Testing
@testable import ChorusCrypto

/// RFC 9449's example EC key (Figures 2 and 8) and its RFC 7638 thumbprint (Figure 9).
enum RFC9449Example {
    static let x = "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"
    static let y = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"
    static let thumbprint = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
}

/// The JWK is exactly RFC 7638's canonical form (members crv, kty, x, y in that order, no
/// whitespace), and its thumbprint is the one RFC 9449 publishes for that key.
@Test func jwkCanonicalFormAndPublishedThumbprint() throws {
    let key = try P256PublicKey(uncompressedPoint: [0x04] + vectorBytes(RFC9449Example.x) + vectorBytes(RFC9449Example.y))
    let canonical = "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(RFC9449Example.x)\",\"y\":\"\(RFC9449Example.y)\"}"
    #expect(JSONWebKey.json(of: key) == canonical)
    #expect(JSONWebKey.thumbprint(of: key) == RFC9449Example.thumbprint)
    #expect(JSONWebKey.thumbprint(of: key) == vectorText(Digest.sha256(Array(canonical.utf8))))
}

/// A JWK in any member order, with extra members, reads back to the key; other curves,
/// types, short coordinates and points off the curve do not.
@Test func jwkReadsBackAndRefusesOthers() throws {
    let key = try P256PrivateKey.generate().publicKey
    let x = vectorText(key.x), y = vectorText(key.y)
    let shuffled = "{\"y\":\"\(y)\",\"kid\":\"k1\",\"kty\":\"EC\",\"x\":\"\(x)\",\"crv\":\"P-256\"}"
    #expect(try JSONWebKey.publicKey(fromJSON: Array(shuffled.utf8)) == key)
    #expect(try JSONWebKey.publicKey(fromJSON: Array(JSONWebKey.json(of: key).utf8)) == key)
    let bad = [
        "{\"crv\":\"P-384\",\"kty\":\"EC\",\"x\":\"\(x)\",\"y\":\"\(y)\"}",
        "{\"crv\":\"P-256\",\"kty\":\"RSA\",\"x\":\"\(x)\",\"y\":\"\(y)\"}",
        "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x.dropLast(2))\",\"y\":\"\(y)\"}",
        "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(y)\",\"y\":\"\(x)\"}",
        "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(x)\"}",
        "[]", "",
    ]
    for json in bad {
        #expect(throws: CryptoError.self, "\(json)") { try JSONWebKey.publicKey(fromJSON: Array(json.utf8)) }
    }
}

/// A JWS with the key inline: the protected header is exactly the expected JSON, the body
/// is the flattened form, and it verifies with the JWK's key and no other.
@Test func jwsWithEmbeddedKeyVerifies() throws {
    let key = try P256PrivateKey.generate()
    let payload = Array("{\"termsOfServiceAgreed\":true,\"contact\":[\"mailto:admin@example.org\"]}".utf8)
    let header = JWSProtectedHeader(key: .jwk, nonce: "6S8IqOGY7eL2lsGoTZYifg", url: "https://acme.example/new-account")
    let jws = try FlattenedJWS.sign(payload: payload, header: header, key: key)
    let expectedHeader = "{\"alg\":\"ES256\",\"jwk\":\(JSONWebKey.json(of: key.publicKey)),\"nonce\":\"6S8IqOGY7eL2lsGoTZYifg\",\"url\":\"https://acme.example/new-account\"}"
    #expect(vectorBytes(jws.protected) == Array(expectedHeader.utf8))
    #expect(vectorBytes(jws.payload) == payload)
    #expect(vectorBytes(jws.signature).count == 64)
    #expect(jws.json == "{\"protected\":\"\(jws.protected)\",\"payload\":\"\(jws.payload)\",\"signature\":\"\(jws.signature)\"}")

    let received = try FlattenedJWS(json: Array(jws.json.utf8))
    #expect(received == jws)
    let headerObject = try JSONSerialization.jsonObject(with: Data(received.protectedHeader())) as? [String: Any]
    let jwk = try JSONSerialization.data(withJSONObject: headerObject?["jwk"] ?? [:])
    let embedded = try JSONWebKey.publicKey(fromJSON: [UInt8](jwk))
    #expect(embedded == key.publicKey)
    #expect(try received.verifiedPayload(with: embedded) == payload)
    try ES256.verify(vectorBytes(jws.signature), of: Array((jws.protected + "." + jws.payload).utf8), with: key.publicKey)
    #expect(throws: CryptoError.self) { try received.verifiedPayload(with: P256PrivateKey.generate().publicKey) }
}

/// POST-as-GET (RFC 8555 §6.3): an empty payload, `kid` instead of `jwk`; still verifies.
@Test func jwsPostAsGetWithKid() throws {
    let key = try P256PrivateKey.generate()
    let header = JWSProtectedHeader(key: .kid("https://acme.example/acct/7"), nonce: "n1", url: "https://acme.example/order/1")
    let jws = try FlattenedJWS.sign(payload: [], header: header, key: key)
    #expect(jws.payload == "")
    #expect(jws.json.contains("\"payload\":\"\""))
    #expect(String(decoding: vectorBytes(jws.protected), as: UTF8.self)
        == "{\"alg\":\"ES256\",\"kid\":\"https://acme.example/acct/7\",\"nonce\":\"n1\",\"url\":\"https://acme.example/order/1\"}")
    #expect(try jws.verifiedPayload(with: key.publicKey) == [])
}

/// An inner JWS has no nonce; strings that need escaping are escaped.
@Test func jwsHeaderWithoutNonceAndWithEscapes() throws {
    let key = try P256PrivateKey.generate()
    let header = JWSProtectedHeader(key: .kid("a\"b\\c\nd\u{01}é"), nonce: nil, url: "https://acme.example/key-change")
    let jws = try FlattenedJWS.sign(payload: Array("{}".utf8), header: header, key: key)
    #expect(String(decoding: vectorBytes(jws.protected), as: UTF8.self)
        == "{\"alg\":\"ES256\",\"kid\":\"a\\\"b\\\\c\\nd\\u0001é\",\"url\":\"https://acme.example/key-change\"}")
    let parsed = try JSONSerialization.jsonObject(with: Data(vectorBytes(jws.protected))) as? [String: String]
    #expect(parsed?["kid"] == "a\"b\\c\nd\u{01}é")
}

/// A changed payload, header or signature, another alg, and malformed bodies are refused.
@Test func jwsTamperingIsDetected() throws {
    let key = try P256PrivateKey.generate()
    let jws = try FlattenedJWS.sign(payload: Array("{\"a\":1}".utf8), header: JWSProtectedHeader(key: .jwk, nonce: "n", url: "u"), key: key)
    let otherPayload = FlattenedJWS(protected: jws.protected, payload: vectorText(Array("{\"a\":2}".utf8)), signature: jws.signature)
    #expect(throws: CryptoError.self) { try otherPayload.verifiedPayload(with: key.publicKey) }
    let hs256 = vectorText(Array("{\"alg\":\"HS256\"}".utf8))
    let otherAlg = try FlattenedJWS.sign(payload: [], header: JWSProtectedHeader(key: .jwk, nonce: "n", url: "u"), key: key)
    let forged = FlattenedJWS(protected: hs256, payload: otherAlg.payload,
                              signature: vectorText(try ES256.sign(Array((hs256 + "." + otherAlg.payload).utf8), with: key)))
    #expect(throws: CryptoError.self) { try forged.verifiedPayload(with: key.publicKey) }
    var signature = vectorBytes(jws.signature)
    signature[0] ^= 0x01
    let badSignature = FlattenedJWS(protected: jws.protected, payload: jws.payload, signature: vectorText(signature))
    #expect(throws: CryptoError.self) { try badSignature.verifiedPayload(with: key.publicKey) }
    let notBase64 = FlattenedJWS(protected: jws.protected, payload: "e30=!", signature: jws.signature)
    #expect(throws: CryptoError.self) { try notBase64.verifiedPayload(with: key.publicKey) }
    for body in ["", "{}", "{\"protected\":1,\"payload\":\"\",\"signature\":\"\"}", "not json"] {
        #expect(throws: CryptoError.self, "\(body)") { try FlattenedJWS(json: Array(body.utf8)) }
    }
}

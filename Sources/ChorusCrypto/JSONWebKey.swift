import Foundation

/// A P-256 public key as a JWK (RFC 7517, RFC 7518 §6.2) and its thumbprint (RFC 7638), for
/// ACME's account key (RFC 8555 §6.2, and the key authorization of §8.1).
public enum JSONWebKey {
    /// `{"crv":"P-256","kty":"EC","x":…,"y":…}`: only the required members, in lexicographic
    /// order with no whitespace, which is both a valid JWK and RFC 7638's canonical form.
    public static func json(of key: P256PublicKey) -> String {
        "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(Base64URL.encode(key.x))\",\"y\":\"\(Base64URL.encode(key.y))\"}"
    }

    /// RFC 7638: base64url of the SHA-256 of the canonical JSON above.
    public static func thumbprint(of key: P256PublicKey) -> String {
        Base64URL.encode(Digest.sha256(Array(json(of: key).utf8)))
    }

    /// The key of an EC P-256 JWK (as a JWS header's `jwk` carries it); other members are ignored.
    public static func publicKey(fromJSON bytes: [UInt8]) throws -> P256PublicKey {
        let members: Members
        do {
            members = try JSONDecoder().decode(Members.self, from: Data(bytes))
        } catch {
            throw CryptoError("JWK is not a JSON object with kty, crv, x and y")
        }
        guard members.kty == "EC", members.crv == "P-256" else { throw CryptoError("JWK is not an EC P-256 key") }
        let x = try Base64URL.decode(members.x, length: 32, what: "JWK x")
        let y = try Base64URL.decode(members.y, length: 32, what: "JWK y")
        return try P256PublicKey(uncompressedPoint: [0x04] + x + y)
    }

    private struct Members: Decodable {
        var kty: String
        var crv: String
        var x: String
        var y: String
    }
}

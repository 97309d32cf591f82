import Foundation

/// A JWS in the flattened JSON serialization (RFC 7515 §7.2.2), the body of every ACME POST
/// (RFC 8555 §6.2): `{"protected":…,"payload":…,"signature":…}`, each base64url, signed ES256.
public struct FlattenedJWS: Sendable, Equatable, Decodable {
    /// base64url of the protected header's JSON.
    public let protected: String
    /// base64url of the payload; "" for ACME's POST-as-GET.
    public let payload: String
    /// base64url of the 64-byte R || S signature.
    public let signature: String

    /// Signs `payload` (JSON text, or empty for POST-as-GET) with `key` under `header`.
    public static func sign(payload: [UInt8], header: JWSProtectedHeader, key: P256PrivateKey) throws -> FlattenedJWS {
        let protected = Base64URL.encode(Array(header.json(signer: key.publicKey).utf8))
        let encodedPayload = Base64URL.encode(payload)
        let signature = try ES256.sign(Array((protected + "." + encodedPayload).utf8), with: key)
        return FlattenedJWS(protected: protected, payload: encodedPayload, signature: Base64URL.encode(signature))
    }

    init(protected: String, payload: String, signature: String) {
        self.protected = protected
        self.payload = payload
        self.signature = signature
    }

    /// Reads a flattened JWS (a test's stand-in ACME server receives these).
    public init(json bytes: [UInt8]) throws {
        do {
            self = try JSONDecoder().decode(FlattenedJWS.self, from: Data(bytes))
        } catch {
            throw CryptoError("JWS is not a JSON object with protected, payload and signature strings")
        }
    }

    /// The request body, members in a fixed order. Quoted, not pasted: a parsed JWS's members
    /// need not be base64url.
    public var json: String {
        "{\"protected\":\(JSONText.quoted(protected)),\"payload\":\(JSONText.quoted(payload)),\"signature\":\(JSONText.quoted(signature))}"
    }

    /// The protected header's JSON bytes, not yet verified.
    public func protectedHeader() throws -> [UInt8] {
        try Base64URL.decode(protected)
    }

    /// The payload, once the protected header says ES256 and the signature verifies with `key`.
    public func verifiedPayload(with key: P256PublicKey) throws -> [UInt8] {
        let headerBytes = try protectedHeader()
        guard let header = try? JSONDecoder().decode(JOSEHeaderFields.self, from: Data(headerBytes)) else {
            throw CryptoError("JWS protected header is not JSON with an alg")
        }
        guard header.alg == "ES256" else { throw CryptoError("JWS alg must be ES256") }
        let payloadBytes = try Base64URL.decode(payload)
        try ES256.verify(Base64URL.decode(signature), of: Array((protected + "." + payload).utf8), with: key)
        return payloadBytes
    }
}

/// The protected header of an ACME request's JWS (RFC 8555 §6.2): alg ES256, the key either
/// inline (`jwk`, for newAccount and revocation by certificate key) or by account URL
/// (`kid`), the server's `nonce` (absent only in an inner JWS) and the request `url`.
public struct JWSProtectedHeader: Sendable, Equatable {
    public enum KeyReference: Sendable, Equatable {
        /// The signer's own public key, as a JWK.
        case jwk
        /// The account URL the server gave.
        case kid(String)
    }

    public var key: KeyReference
    public var nonce: String?
    public var url: String

    public init(key: KeyReference, nonce: String?, url: String) {
        self.key = key
        self.nonce = nonce
        self.url = url
    }

    /// The header's JSON, members in lexicographic order, written by hand so it is the same
    /// bytes every time (the signature covers them).
    func json(signer: P256PublicKey) -> String {
        var members = ["\"alg\":\"ES256\""]
        switch key {
        case .jwk: members.append("\"jwk\":" + JSONWebKey.json(of: signer))
        case .kid(let account): members.append("\"kid\":" + JSONText.quoted(account))
        }
        if let nonce { members.append("\"nonce\":" + JSONText.quoted(nonce)) }
        members.append("\"url\":" + JSONText.quoted(url))
        return "{" + members.joined(separator: ",") + "}"
    }
}

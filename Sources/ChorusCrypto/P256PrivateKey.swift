import COpenSSL

/// A P-256 private key: the server's VAPID key, an ephemeral Web Push key, an ACME account key.
///
/// Stored as the 32-byte private scalar d (big-endian, SEC 1 §2.3.7), or its 43-character
/// base64url. Chosen over PKCS#8 DER because the curve is fixed here, so the scalar is the
/// whole secret: one fixed length to check on the way in (no ASN.1 to parse from a database
/// row), the public key follows from it, and it is the form RFC 8291's example keys and a
/// JWK's `d` use. PKCS#8 would add ~100 bytes of structure that says "P-256" every time.
public final class P256PrivateKey: @unchecked Sendable {
    /// The 32-byte private scalar: what to store.
    public let scalar: [UInt8]
    public let publicKey: P256PublicKey
    /// The EVP_PKEY; never changed after init, and OpenSSL allows concurrent use of a key that is only read.
    let key: OpaquePointer

    /// A fresh key from OpenSSL's generator.
    public static func generate() throws -> P256PrivateKey {
        ERR_clear_error()
        guard let generated = copenssl_ec_p256_key() else { throw CryptoError.openSSL("cannot generate P-256 key") }
        defer { EVP_PKEY_free(generated) }
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(generated, "priv", &number) == 1, let number else {
            throw CryptoError.openSSL("cannot read generated P-256 key")
        }
        defer { BN_clear_free(number) }
        var scalar = [UInt8](repeating: 0, count: P256Curve.scalarLength)
        guard BN_bn2binpad(number, &scalar, Int32(scalar.count)) == Int32(scalar.count) else {
            throw CryptoError.openSSL("cannot export generated P-256 key")
        }
        return try P256PrivateKey(scalar: scalar)
    }

    /// A stored key: exactly 32 bytes, between 1 and the group order minus 1.
    public init(scalar: [UInt8]) throws {
        guard scalar.count == P256Curve.scalarLength else {
            throw CryptoError.wrongLength("P-256 private key", expected: P256Curve.scalarLength, got: scalar.count)
        }
        ERR_clear_error()
        let point = try P256Curve.publicPoint(ofScalar: scalar)
        let parameters = try OpenSSLParameters()
        try parameters.add("group", text: "P-256")
        try parameters.add("priv", unsignedBigEndian: scalar, width: P256Curve.scalarLength)
        try parameters.add("pub", bytes: point)
        key = try P256Curve.makeKey(parameters, selection: COPENSSL_PKEY_KEYPAIR)
        self.scalar = scalar
        do {
            publicKey = try P256PublicKey(uncompressedPoint: point)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    /// A stored key in base64url.
    public convenience init(base64URL text: String) throws {
        try self.init(scalar: Base64URL.decode(text, length: P256Curve.scalarLength, what: "P-256 private key"))
    }

    /// The scalar in base64url, 43 characters: what to store.
    public var base64URL: String { Base64URL.encode(scalar) }

    deinit { EVP_PKEY_free(key) }
}

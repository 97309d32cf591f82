import COpenSSL

/// ES256 (RFC 7518 §3.4): ECDSA on P-256 with SHA-256, signatures as 64-byte R || S. What
/// VAPID's JWT (RFC 8292) and ACME's JWS (RFC 8555) are signed with.
public enum ES256 {
    /// The 64-byte R || S signature of `message`, made with EVP_DigestSign.
    public static func sign(_ message: [UInt8], with key: P256PrivateKey) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("cannot allocate signing context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.key) == 1 else { throw CryptoError.openSSL("cannot start ES256 signing") }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw CryptoError.openSSL("ES256 signing failed") }
        var der = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { throw CryptoError.openSSL("ES256 signing failed") }
        return try ECDSASignatureForm.raw(fromDER: Array(der.prefix(length)))
    }

    /// Throws unless `signature` is a 64-byte R || S that `key` made over `message`. A DER
    /// signature is refused by its length: JOSE allows only the raw form.
    public static func verify(_ signature: [UInt8], of message: [UInt8], with key: P256PublicKey) throws {
        let der = try ECDSASignatureForm.der(fromRaw: signature)
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("cannot allocate verifying context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.key) == 1 else {
            throw CryptoError.openSSL("cannot start ES256 verification")
        }
        guard EVP_DigestVerify(context, der, der.count, message, message.count) == 1 else {
            ERR_clear_error()
            throw CryptoError("ES256 signature does not verify with this key")
        }
    }
}

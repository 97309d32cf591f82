import COpenSSL

extension P256PrivateKey {
    /// ECDH (EVP_PKEY_derive): the 32-byte X coordinate of d·Q, the `ecdh_secret` of RFC 8291 §3.1.
    public func sharedSecret(with peer: P256PublicKey) throws -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw CryptoError.openSSL("cannot allocate ECDH context") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw CryptoError.openSSL("cannot start ECDH") }
        // The peer was checked when it was imported (P256PublicKey), so OpenSSL need not check it again.
        guard EVP_PKEY_derive_set_peer_ex(context, peer.key, 0) == 1 else { throw CryptoError.openSSL("cannot use peer key for ECDH") }
        var secret = [UInt8](repeating: 0, count: P256Curve.scalarLength)
        var length = secret.count
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == secret.count else {
            throw CryptoError.openSSL("ECDH failed")
        }
        return secret
    }
}

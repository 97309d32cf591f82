import COpenSSL

/// ECDSA P-256 signatures in their two spellings: the DER SEQUENCE { r, s } OpenSSL makes and
/// reads, and JOSE's R || S, each a 32-byte big-endian number (RFC 7518 §3.4).
enum ECDSASignatureForm {
    static let rawLength = 64
    private static let half = 32

    /// DER → R || S. Refuses trailing bytes and numbers wider than 32 bytes.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        // 8 bytes is the shortest SEQUENCE of two INTEGERs; 72 the longest for P-256.
        guard (8...72).contains(der.count) else { throw CryptoError("ECDSA signature is not one DER SEQUENCE of two integers") }
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            guard let parsed = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                ECDSA_SIG_free(parsed)
                return nil
            }
            return parsed
        }
        guard let signature else {
            ERR_clear_error()
            throw CryptoError("ECDSA signature is not one DER SEQUENCE of two integers")
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: rawLength)
        let written = raw.withUnsafeMutableBufferPointer { out in
            (BN_bn2binpad(r, out.baseAddress, Int32(half)), BN_bn2binpad(s, out.baseAddress! + half, Int32(half)))
        }
        guard written == (Int32(half), Int32(half)) else { throw CryptoError("ECDSA signature numbers are wider than 32 bytes") }
        return raw
    }

    /// R || S → DER, for OpenSSL's verifier.
    static func der(fromRaw raw: [UInt8]) throws -> [UInt8] {
        guard raw.count == rawLength else { throw CryptoError.wrongLength("ES256 signature", expected: rawLength, got: raw.count) }
        guard let signature = ECDSA_SIG_new() else { throw CryptoError.openSSL("cannot allocate signature") }
        defer { ECDSA_SIG_free(signature) }
        guard let r = BN_bin2bn(raw, Int32(half), nil) else { throw CryptoError.openSSL("cannot read signature") }
        guard let s = raw.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }) else {
            BN_free(r)
            throw CryptoError.openSSL("cannot read signature")
        }
        // set0 hands r and s to the signature, which frees them.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw CryptoError.openSSL("cannot build signature")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw CryptoError.openSSL("cannot encode signature") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL("cannot encode signature") }
        return der
    }
}

import COpenSSL

/// What the P-256 key types share: building an EVP_PKEY from parameters, OpenSSL's key
/// checks, and the public point of a private scalar.
enum P256Curve {
    static let scalarLength = 32

    /// EVP_PKEY_fromdata for an "EC" key; the caller frees the result.
    static func makeKey(_ parameters: OpenSSLParameters, selection: Int32) throws -> OpaquePointer {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw CryptoError.openSSL("cannot allocate EC key context") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError.openSSL("cannot start EC key import") }
        var key: OpaquePointer?
        let status = try parameters.withList { EVP_PKEY_fromdata(context, &key, selection, $0) }
        guard status == 1, let key else { throw CryptoError.openSSL("cannot import EC key") }
        return key
    }

    /// Runs one of OpenSSL's EVP_PKEY_*_check functions on `key`.
    static func passesCheck(_ key: OpaquePointer, _ check: (OpaquePointer?) -> Int32) -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let passed = check(context) == 1
        if !passed { ERR_clear_error() }
        return passed
    }

    /// The uncompressed point scalar·G. Refuses 0 and anything not below the group order:
    /// such a "key" would silently be a different key (or none) rather than the one stored.
    static func publicPoint(ofScalar scalar: [UInt8]) throws -> [UInt8] {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { throw CryptoError.openSSL("cannot load P-256") }
        defer { EC_GROUP_free(group) }
        guard let number = BN_bin2bn(scalar, Int32(scalar.count), nil) else { throw CryptoError.openSSL("cannot read private key") }
        defer { BN_clear_free(number) }
        guard BN_is_zero(number) == 0, let order = EC_GROUP_get0_order(group), BN_cmp(number, order) < 0 else {
            throw CryptoError("P-256 private key is out of range (zero, or not below the group order)")
        }
        guard let point = EC_POINT_new(group) else { throw CryptoError.openSSL("cannot allocate point") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, number, nil, nil, nil) == 1 else { throw CryptoError.openSSL("cannot compute public key") }
        var bytes = [UInt8](repeating: 0, count: P256PublicKey.pointLength)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &bytes, bytes.count, nil) == bytes.count else {
            throw CryptoError.openSSL("cannot encode public key")
        }
        return bytes
    }
}

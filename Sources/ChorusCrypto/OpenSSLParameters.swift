import COpenSSL

/// An OSSL_PARAM list for EVP_PKEY_fromdata and EVP_KDF_derive, built with OSSL_PARAM_BLD,
/// which copies every value: the Swift arrays need not outlive the calls that add them.
final class OpenSSLParameters {
    private let builder: OpaquePointer

    init() throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL("cannot allocate OpenSSL parameters") }
        self.builder = builder
    }

    deinit { OSSL_PARAM_BLD_free(builder) }

    func add(_ name: String, text: String) throws {
        guard OSSL_PARAM_BLD_push_utf8_string(builder, name, text, 0) == 1 else {
            throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)")
        }
    }

    func add(_ name: String, bytes: [UInt8]) throws {
        let pushed = bytes.withUnsafeBytes { OSSL_PARAM_BLD_push_octet_string(builder, name, $0.baseAddress, $0.count) }
        guard pushed == 1 else { throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)") }
    }

    /// A big-endian unsigned number (a private scalar), padded to `width` bytes so its length
    /// says nothing about its value.
    func add(_ name: String, unsignedBigEndian bytes: [UInt8], width: Int) throws {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw CryptoError.openSSL("cannot read \(name)") }
        defer { BN_clear_free(number) }
        guard OSSL_PARAM_BLD_push_BN_pad(builder, name, number, width) == 1 else {
            throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)")
        }
    }

    /// Runs `body` with the finished list, freed (and its secrets cleared) after.
    func withList<T>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> T) throws -> T {
        guard let list = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.openSSL("cannot build OpenSSL parameters") }
        defer { OSSL_PARAM_clear_free(list) }
        return try body(list)
    }
}

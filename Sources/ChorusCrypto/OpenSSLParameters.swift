import COpenSSL
import Foundation

/// An OSSL_PARAM list for EVP_PKEY_fromdata and EVP_KDF_derive, built with OSSL_PARAM_BLD.
/// The builder keeps only pointers to names and values until the list is made, and the list
/// points at the names, so this object keeps C copies of both alive as long as it lives,
/// and wipes the values (private scalars, ECDH secrets) when it goes.
final class OpenSSLParameters {
    private let builder: OpaquePointer
    private var names: [UnsafeMutablePointer<CChar>] = []
    private var values: [(pointer: UnsafeMutableRawPointer, count: Int)] = []
    private var numbers: [OpaquePointer] = []

    init() throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL("cannot allocate OpenSSL parameters") }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        for name in names { free(name) }
        for value in values {
            OPENSSL_cleanse(value.pointer, value.count)
            free(value.pointer)
        }
        for number in numbers { BN_clear_free(number) }
    }

    func add(_ name: String, text: String) throws {
        let utf8 = Array(text.utf8)
        let value = try keep(utf8 + [0])
        guard OSSL_PARAM_BLD_push_utf8_string(builder, try keep(name), value.assumingMemoryBound(to: CChar.self), utf8.count) == 1 else {
            throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)")
        }
    }

    func add(_ name: String, bytes: [UInt8]) throws {
        let value = try keep(bytes)
        guard OSSL_PARAM_BLD_push_octet_string(builder, try keep(name), value, bytes.count) == 1 else {
            throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)")
        }
    }

    /// A big-endian unsigned number (a private scalar), padded to `width` bytes so its length
    /// says nothing about its value.
    func add(_ name: String, unsignedBigEndian bytes: [UInt8], width: Int) throws {
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw CryptoError.openSSL("cannot read \(name)") }
        numbers.append(number)
        guard OSSL_PARAM_BLD_push_BN_pad(builder, try keep(name), number, width) == 1 else {
            throw CryptoError.openSSL("cannot set OpenSSL parameter \(name)")
        }
    }

    /// Runs `body` with the finished list, freed after (its values wiped first: OpenSSL 3.0
    /// has no OSSL_PARAM_clear_free).
    func withList<T>(_ body: (UnsafeMutablePointer<OSSL_PARAM>) throws -> T) throws -> T {
        guard let list = OSSL_PARAM_BLD_to_param(builder) else { throw CryptoError.openSSL("cannot build OpenSSL parameters") }
        defer {
            var entry = list
            while entry.pointee.key != nil {
                if let data = entry.pointee.data { OPENSSL_cleanse(data, entry.pointee.data_size) }
                entry += 1
            }
            OSSL_PARAM_free(list)
        }
        return try body(list)
    }

    /// A C copy of a name, kept until deinit.
    private func keep(_ name: String) throws -> UnsafeMutablePointer<CChar> {
        guard let copy = strdup(name) else { throw CryptoError("cannot allocate OpenSSL parameter name") }
        names.append(copy)
        return copy
    }

    /// A C copy of a value, kept (and wiped) until deinit. Never zero bytes, so malloc never returns nil for a valid request.
    private func keep(_ bytes: [UInt8]) throws -> UnsafeMutableRawPointer {
        guard let copy = malloc(max(bytes.count, 1)) else { throw CryptoError("cannot allocate OpenSSL parameter") }
        values.append((copy, max(bytes.count, 1)))
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { copy.copyMemory(from: base, byteCount: source.count) }
        }
        return copy
    }
}

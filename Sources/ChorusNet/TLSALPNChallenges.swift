import COpenSSL
import ChorusLocking
import Foundation

/// The tls-alpn-01 challenge certificates the listener answers with while an ACME order
/// runs (RFC 8737), by name. A handshake offering `acme-tls/1` for a name here gets its
/// certificate; one for any other name is refused. Other handshakes never look here.
public final class TLSALPNChallenges: @unchecked Sendable {
    // Safety: `certificates` is behind its lock; `hook` is written once in init and only
    // read by OpenSSL after.
    private struct Pair {
        let certificate: OpaquePointer
        let key: OpaquePointer
    }

    private let certificates = Locked<[String: Pair]>([:])
    /// What the C client-hello callback is given: the install function and this object.
    let hook: UnsafeMutablePointer<copenssl_acme_hook>

    public init() {
        hook = .allocate(capacity: 1)
        hook.initialize(to: copenssl_acme_hook(install: { ssl, name, context in
            guard let ssl, let name, let context else { return 0 }
            let challenges = Unmanaged<TLSALPNChallenges>.fromOpaque(context).takeUnretainedValue()
            return challenges.install(on: ssl, name: String(cString: name)) ? 1 : 0
        }, context: nil))
        hook.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        certificates.withLock { table in
            for pair in table.values { free(pair) }
            table.removeAll()
        }
        hook.deallocate()
    }

    /// Answers challenges for `name` with this certificate and key (PEM) until `remove`.
    public func add(name: String, certificatePEM: [UInt8], keyPEM: [UInt8]) throws {
        ERR_clear_error()
        guard let certificate = Self.read(certificatePEM, PEM_read_bio_X509) else {
            throw NetError("cannot read the tls-alpn-01 certificate for \(name): \(OpenSSLError.drain())")
        }
        guard let key = Self.read(keyPEM, PEM_read_bio_PrivateKey) else {
            X509_free(certificate)
            throw NetError("cannot read the tls-alpn-01 key for \(name): \(OpenSSLError.drain())")
        }
        let old = certificates.withLock { table in
            defer { table[name.lowercased()] = Pair(certificate: certificate, key: key) }
            return table[name.lowercased()]
        }
        if let old { free(old) }
    }

    public func remove(name: String) {
        if let old = certificates.withLock({ $0.removeValue(forKey: name.lowercased()) }) { free(old) }
    }

    /// Called by OpenSSL during a handshake. The SSL takes its own references, so a
    /// certificate removed meanwhile stays alive for that handshake.
    private func install(on ssl: OpaquePointer, name: String) -> Bool {
        certificates.withLock { table in
            guard let pair = table[name.lowercased()] else { return false }
            return SSL_use_certificate(ssl, pair.certificate) == 1 && SSL_use_PrivateKey(ssl, pair.key) == 1
        }
    }

    private func free(_ pair: Pair) {
        X509_free(pair.certificate)
        EVP_PKEY_free(pair.key)
    }

    private static func read<T>(_ pem: [UInt8], _ reader: (OpaquePointer?, UnsafeMutablePointer<T?>?, (@convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32)?, UnsafeMutableRawPointer?) -> T?) -> T? {
        pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return reader(bio, nil, nil, nil)
        }
    }
}

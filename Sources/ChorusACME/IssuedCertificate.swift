import ChorusCrypto
import COpenSSL
import Foundation

/// A certificate chain and its key, checked: the PEM holds at least one certificate,
/// the key is a key, the leaf's validity read (Unix seconds) and its DNS names listed.
public struct IssuedCertificate: Sendable {
    public let chainPEM: String
    public let keyPEM: String
    public let notBefore: Int64
    public let notAfter: Int64
    /// The leaf's subjectAltName DNS names, lowercased.
    public let names: [String]

    public init(chainPEM: String, keyPEM: String) throws {
        ERR_clear_error()
        // A memory BIO reads the caller's buffer in place, so each is read inside the
        // closure that keeps its bytes alive.
        let (start, end, names) = try Self.withPEM(chainPEM) { bio -> (Int64, Int64, [String]) in
            guard let leaf = PEM_read_bio_X509(bio, nil, nil, nil) else { throw OpenSSLOutput.failure("the chain holds no certificate") }
            defer { X509_free(leaf) }
            guard let start = Self.seconds(X509_get0_notBefore(leaf)), let end = Self.seconds(X509_get0_notAfter(leaf)), end > start else {
                throw ACMEError("the certificate's validity dates cannot be read")
            }
            try Self.withPEM(keyPEM) { keyBIO in
                guard let key = PEM_read_bio_PrivateKey(keyBIO, nil, nil, nil) else {
                    throw OpenSSLOutput.failure("the certificate key cannot be read")
                }
                defer { EVP_PKEY_free(key) }
                guard X509_check_private_key(leaf, key) == 1 else {
                    ERR_clear_error()
                    throw ACMEError("the certificate does not match its key")
                }
            }
            return (start, end, Self.dnsNames(leaf))
        }
        self.chainPEM = chainPEM
        self.keyPEM = keyPEM
        notBefore = start
        notAfter = end
        self.names = names
    }

    private static func withPEM<T>(_ text: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw OpenSSLOutput.failure("cannot read PEM text") }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }

    /// The DNS names among the subjectAltName entries (ChorusCrypto reads them), lower case.
    private static func dnsNames(_ certificate: OpaquePointer) -> [String] {
        CertificateNames.subjectAltNames(certificate: certificate).compactMap { entry in
            entry.hasPrefix("DNS:") ? String(entry.dropFirst(4)).lowercased() : nil
        }
    }
}

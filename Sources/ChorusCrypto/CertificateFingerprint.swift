import COpenSSL

/// SHA-256 certificate fingerprints in the "AB:CD:…" form `openssl x509 -fingerprint -sha256` prints,
/// so a user can compare what the server logs with what a client shows.
public enum CertificateFingerprint {
    /// Fingerprint of the first certificate in a PEM file.
    public static func sha256(pemFile path: String) throws -> String {
        ERR_clear_error()
        guard let bio = BIO_new_file(path, "r") else {
            throw CryptoError.openSSL("cannot read certificate \(path)")
        }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw CryptoError.openSSL("cannot parse certificate \(path)")
        }
        defer { X509_free(certificate) }
        guard let fingerprint = sha256(certificate: certificate) else {
            throw CryptoError.openSSL("cannot hash certificate \(path)")
        }
        return fingerprint
    }

    /// Fingerprint of an in-memory X509 (for example a TLS peer certificate); nil if OpenSSL cannot encode it.
    public static func sha256(certificate: OpaquePointer) -> String? {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Hex.colonSeparatedUppercase(Array(digest.prefix(Int(length))))
    }
}

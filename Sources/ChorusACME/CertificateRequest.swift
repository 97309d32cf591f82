import COpenSSL

/// A fresh P-256 key for a certificate and the PKCS#10 request (CSR) an order is
/// finalized with (RFC 8555 §7.4): subject CN the first name, every name in a
/// subjectAltName extension, signed with SHA-256 by the new key.
struct CertificateRequest {
    /// The CSR in DER, base64url-encoded into the finalize request.
    let der: [UInt8]
    /// The new key as PKCS#8 PEM: what the certificate will be served with.
    let keyPEM: String

    init(names: [String]) throws {
        guard let first = names.first else { throw ACMEError("a certificate needs at least one name") }
        ERR_clear_error()
        guard let key = copenssl_ec_p256_key() else { throw OpenSSLOutput.failure("cannot make a certificate key") }
        defer { EVP_PKEY_free(key) }
        guard let request = X509_REQ_new() else { throw OpenSSLOutput.failure("cannot allocate a CSR") }
        defer { X509_REQ_free(request) }
        guard X509_REQ_set_version(request, 0) == 1,
              let subject = X509_REQ_get_subject_name(request),
              X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, first, -1, -1, 0) == 1,
              X509_REQ_set_pubkey(request, key) == 1
        else { throw OpenSSLOutput.failure("cannot fill in the CSR for \(first)") }

        let names = try OpenSSLOutput.dnsNames(names)
        defer { GENERAL_NAMES_free(names) }
        guard let extensions = OPENSSL_sk_new_null() else { throw OpenSSLOutput.failure("cannot allocate CSR extensions") }
        defer { OPENSSL_sk_pop_free(extensions, { X509_EXTENSION_free(OpaquePointer($0)) }) }
        guard let alternative = X509V3_EXT_i2d(NID_subject_alt_name, 0, UnsafeMutableRawPointer(names)) else {
            throw OpenSSLOutput.failure("cannot encode subjectAltName")
        }
        guard OPENSSL_sk_push(extensions, UnsafeRawPointer(alternative)) > 0 else {
            X509_EXTENSION_free(alternative)
            throw OpenSSLOutput.failure("cannot add subjectAltName")
        }
        guard X509_REQ_add_extensions(request, extensions) == 1 else { throw OpenSSLOutput.failure("cannot add CSR extensions") }
        guard X509_REQ_sign(request, key, EVP_sha256()) > 0 else { throw OpenSSLOutput.failure("cannot sign the CSR") }

        var buffer: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_REQ(request, &buffer)
        guard length > 0, let buffer else { throw OpenSSLOutput.failure("cannot encode the CSR") }
        der = Array(UnsafeBufferPointer(start: buffer, count: Int(length)))
        CRYPTO_free(buffer, #file, #line)
        keyPEM = String(decoding: try OpenSSLOutput.bytes("certificate key") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) },
                        as: UTF8.self)
    }
}

import COpenSSL
import Foundation

/// The server's OpenSSL configuration: Mozilla "intermediate" (TLS 1.2 and 1.3; for 1.2
/// only ECDHE with AES-GCM or ChaCha20-Poly1305), groups X25519, P-256, P-384, no
/// compression, no renegotiation.
public final class TLSServerContext: @unchecked Sendable {
    // Safety: an SSL_CTX may be shared by threads for SSL_new once configured; it is not
    // changed after init.
    let context: OpaquePointer

    public static let tls12Ciphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")
    public static let tls13Suites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"
    public static let groups = "X25519:P-256:P-384"

    /// Kept alive as long as the context whose hook points into it.
    private let challenges: TLSALPNChallenges?

    /// From PEM files. With `challenges`, handshakes offering `acme-tls/1` are answered
    /// from them (ACME's tls-alpn-01).
    public convenience init(certificatePath: String, keyPath: String, challenges: TLSALPNChallenges? = nil) throws {
        try self.init(challenges: challenges) { context in
            try Self.load(context, certificatePath: certificatePath, keyPath: keyPath)
        }
    }

    /// From PEM text in memory (a certificate ACME issued, kept in the store): the chain
    /// leaf first, then its intermediates.
    public convenience init(chainPEM: [UInt8], keyPEM: [UInt8], challenges: TLSALPNChallenges? = nil) throws {
        try self.init(challenges: challenges) { context in
            try Self.load(context, chainPEM: chainPEM, keyPEM: keyPEM)
        }
    }

    private init(challenges: TLSALPNChallenges?, load: (OpaquePointer) throws -> Void) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw NetError("cannot create TLS context: \(OpenSSLError.drain())")
        }
        // Configured before it is stored: until then `deinit` cannot run, so the one
        // free on failure is this one (before, a failing init freed it here and in
        // `deinit`, and a bad certificate on SIGHUP aborted the server).
        do {
            try Self.configure(context)
            if let challenges { copenssl_ctx_answer_tls_alpn(context, challenges.hook) }
            try load(context)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.context = context
        self.challenges = challenges
    }

    deinit {
        SSL_CTX_free(context)
    }

    static func configure(_ context: OpaquePointer) throws {
        guard copenssl_ctx_set_min_proto(context, COPENSSL_TLS1_2_VERSION) == 1,
              copenssl_ctx_set_max_proto(context, COPENSSL_TLS1_3_VERSION) == 1,
              SSL_CTX_set_cipher_list(context, tls12Ciphers) == 1,
              SSL_CTX_set_ciphersuites(context, tls13Suites) == 1,
              copenssl_ctx_set_groups(context, groups) == 1
        else {
            throw NetError("cannot configure TLS: \(OpenSSLError.drain())")
        }
        SSL_CTX_set_options(context, COPENSSL_OP_NO_COMPRESSION | COPENSSL_OP_NO_RENEGOTIATION)
        // Partial writes and a moving buffer let a session keep appending to its output
        // while a write waits; releasing buffers keeps idle sessions small.
        _ = copenssl_ctx_set_mode(context, COPENSSL_MODE_PARTIAL_WRITE | COPENSSL_MODE_MOVING_BUFFER | COPENSSL_MODE_RELEASE_BUFFERS)
        // `chorus` or `http/1.1` when the client offers one (the shim's list and order).
        copenssl_ctx_select_alpn(context)
    }

    /// The key goes first: a certificate that does not match it then drops it, and the
    /// check names the mismatch instead of a vague "cannot read private key".
    private static func load(_ context: OpaquePointer, certificatePath: String, keyPath: String) throws {
        // The system's reason (no such file, permission denied) says more than OpenSSL's,
        // and a pipe or device must not reach OpenSSL's blocking reads at all.
        for (what, path) in [("private key", keyPath), ("certificate", certificatePath)] {
            if access(path, R_OK) != 0 { throw NetError.system("cannot read \(what) \(path)") }
            try RegularFile.check(path, what: what)
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1 else {
            throw NetError("cannot read private key \(keyPath): \(OpenSSLError.drain())")
        }
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw NetError("cannot read certificate \(certificatePath): \(OpenSSLError.drain())")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            _ = OpenSSLError.drain()
            throw NetError("private key \(keyPath) does not match certificate \(certificatePath)")
        }
    }

    private static func load(_ context: OpaquePointer, chainPEM: [UInt8], keyPEM: [UInt8]) throws {
        ERR_clear_error()
        try keyPEM.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw NetError("cannot read private key") }
            defer { BIO_free(bio) }
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw NetError("cannot read private key: \(OpenSSLError.drain())")
            }
            defer { EVP_PKEY_free(key) }
            guard SSL_CTX_use_PrivateKey(context, key) == 1 else { throw NetError("cannot use private key: \(OpenSSLError.drain())") }
        }
        try chainPEM.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { throw NetError("cannot read certificate") }
            defer { BIO_free(bio) }
            guard let leaf = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw NetError("cannot read certificate: \(OpenSSLError.drain())")
            }
            defer { X509_free(leaf) }
            guard SSL_CTX_use_certificate(context, leaf) == 1 else { throw NetError("cannot use certificate: \(OpenSSLError.drain())") }
            // The rest are intermediates; the end of the text ends the loop (and its error).
            while let next = PEM_read_bio_X509(bio, nil, nil, nil) {
                guard copenssl_ctx_add0_chain_cert(context, next) == 1 else {
                    X509_free(next)
                    throw NetError("cannot use intermediate certificate: \(OpenSSLError.drain())")
                }
            }
            ERR_clear_error()
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            _ = OpenSSLError.drain()
            throw NetError("the private key does not match the certificate")
        }
    }

    /// A fresh SSL for one accepted socket, in server mode.
    func makeSession(fd: Int32) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
        return ssl
    }
}

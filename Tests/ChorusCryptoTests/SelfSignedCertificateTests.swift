import COpenSSL
import Foundation
import Testing
@testable import ChorusCrypto

/// A fresh temporary directory, removed after `body` runs.
private func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = NSTemporaryDirectory() + "chorus-crypto-" + SecureRandom.hex(8)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Loads the first certificate of a PEM file; the caller frees it.
private func loadCertificate(_ path: String) throws -> OpaquePointer {
    guard let bio = BIO_new_file(path, "r") else { throw CryptoError("cannot open \(path)") }
    defer { BIO_free(bio) }
    guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { throw CryptoError("cannot parse \(path)") }
    return certificate
}

/// Loads a PEM private key; the caller frees it.
private func loadKey(_ path: String) throws -> OpaquePointer {
    guard let bio = BIO_new_file(path, "r") else { throw CryptoError("cannot open \(path)") }
    defer { BIO_free(bio) }
    guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else { throw CryptoError("cannot parse \(path)") }
    return key
}

/// Verifies `certificate` as a TLS server certificate with itself as the only trust anchor,
/// the way a client given the certificate as its CA file does. Returns nil on success, else the reason.
private func verifyAgainstItself(
    _ certificate: OpaquePointer, host: String? = nil, ip: String? = nil, strict: Bool = false
) -> String? {
    guard let store = X509_STORE_new() else { return "no store" }
    defer { X509_STORE_free(store) }
    guard X509_STORE_add_cert(store, certificate) == 1 else { return "cannot add anchor" }
    guard let context = X509_STORE_CTX_new() else { return "no context" }
    defer { X509_STORE_CTX_free(context) }
    guard X509_STORE_CTX_init(context, store, certificate, nil) == 1 else { return "cannot init context" }
    let param = X509_STORE_CTX_get0_param(context)
    guard X509_VERIFY_PARAM_set_purpose(param, X509_PURPOSE_SSL_SERVER) == 1 else { return "cannot set purpose" }
    if let host, X509_VERIFY_PARAM_set1_host(param, host, 0) != 1 { return "cannot set host" }
    if let ip, X509_VERIFY_PARAM_set1_ip_asc(param, ip) != 1 { return "cannot set ip" }
    // Python 3.13's default context turns on strict checking, so the certificate must pass it too.
    if strict, X509_VERIFY_PARAM_set_flags(param, UInt(X509_V_FLAG_X509_STRICT)) != 1 { return "cannot set strict" }
    if X509_verify_cert(context) == 1 { return nil }
    return String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
}

/// Creates both files, with the key private (0600) and the certificate world-readable (0644).
@Test func createWritesFilesWithModes() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", key = dir + "/server.key"
        let fingerprint = try SelfSignedCertificate.create(certificatePath: cert, keyPath: key)
        let keyMode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
        let certMode = try FileManager.default.attributesOfItem(atPath: cert)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(certMode == 0o644)
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        #expect(keyText.hasPrefix("-----BEGIN PRIVATE KEY-----"))  // PKCS#8
        let certText = try String(contentsOfFile: cert, encoding: .utf8)
        #expect(certText.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(fingerprint.count == 32 * 3 - 1)
        #expect(fingerprint == fingerprint.uppercased())
    }
}

/// Recreating over an existing key file with loose permissions tightens it back to 0600.
@Test func createTightensExistingKeyMode() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", key = dir + "/server.key"
        #expect(FileManager.default.createFile(
            atPath: key, contents: Data("old".utf8), attributes: [.posixPermissions: 0o666]))
        _ = try SelfSignedCertificate.create(certificatePath: cert, keyPath: key)
        let keyMode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
    }
}

/// The returned fingerprint equals the one read back from the file and the one of the parsed X509.
@Test func fingerprintMatchesFile() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", key = dir + "/server.key"
        let fingerprint = try SelfSignedCertificate.create(certificatePath: cert, keyPath: key)
        #expect(try CertificateFingerprint.sha256(pemFile: cert) == fingerprint)
        let x509 = try loadCertificate(cert)
        defer { X509_free(x509) }
        #expect(CertificateFingerprint.sha256(certificate: x509) == fingerprint)
        // Independently: SHA-256 over the DER encoding.
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &der)
        #expect(length > 0)
        if let der {
            defer { CRYPTO_free(der, #file, #line) }
            let digest = Digest.sha256(Array(UnsafeBufferPointer(start: der, count: Int(length))))
            #expect(Hex.colonSeparatedUppercase(digest) == fingerprint)
        }
    }
}

/// Two certificates made in a row differ (fresh key and serial each time).
@Test func eachCertificateIsNew() throws {
    try withTemporaryDirectory { dir in
        let first = try SelfSignedCertificate.create(certificatePath: dir + "/a.crt", keyPath: dir + "/a.key")
        let second = try SelfSignedCertificate.create(certificatePath: dir + "/b.crt", keyPath: dir + "/b.key")
        #expect(first != second)
    }
}

/// With the certificate as the only trust anchor it verifies for TLS server use, for localhost and 127.0.0.1,
/// also under strict X.509 checking; and it does not verify for a name it was not made for.
@Test func certificateVerifiesAgainstItself() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt"
        _ = try SelfSignedCertificate.create(certificatePath: cert, keyPath: dir + "/server.key")
        let x509 = try loadCertificate(cert)
        defer { X509_free(x509) }
        #expect(verifyAgainstItself(x509) == nil)
        #expect(verifyAgainstItself(x509, host: "localhost") == nil)
        #expect(verifyAgainstItself(x509, ip: "127.0.0.1") == nil)
        #expect(verifyAgainstItself(x509, host: "localhost", strict: true) == nil)
        #expect(verifyAgainstItself(x509, ip: "127.0.0.1", strict: true) == nil)
        #expect(verifyAgainstItself(x509, host: "example.com") != nil)
        #expect(verifyAgainstItself(x509, ip: "10.0.0.1") != nil)
    }
}

/// The certificate's fields: v3, CN, positive 128-bit-ish serial, validity window, key usages, SHA-256 signature.
@Test func certificateFields() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt"
        _ = try SelfSignedCertificate.create(
            certificatePath: cert, keyPath: dir + "/server.key", commonName: "Chorus Test", days: 30)
        let x509 = try loadCertificate(cert)
        defer { X509_free(x509) }
        #expect(X509_get_version(x509) == 2)

        var buffer = [CChar](repeating: 0, count: 256)
        let length = X509_NAME_get_text_by_NID(X509_get_subject_name(x509), NID_commonName, &buffer, Int32(buffer.count))
        #expect(length > 0)
        #expect(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "Chorus Test")
        #expect(X509_NAME_cmp(X509_get_subject_name(x509), X509_get_issuer_name(x509)) == 0)

        let serial = ASN1_INTEGER_to_BN(X509_get_serialNumber(x509), nil)
        defer { BN_free(serial) }
        #expect(BN_is_negative(serial) == 0)
        #expect(BN_num_bits(serial) > 64 && BN_num_bits(serial) <= 128)

        // Starts about an hour ago and ends about 30 days later.
        var day: Int32 = 0, seconds: Int32 = 0
        #expect(ASN1_TIME_diff(&day, &seconds, nil, X509_get0_notBefore(x509)) == 1)
        #expect(day == 0 && seconds <= -3500 && seconds >= -3700)
        #expect(ASN1_TIME_diff(&day, &seconds, X509_get0_notBefore(x509), X509_get0_notAfter(x509)) == 1)
        #expect(day == 30 && seconds == 0)

        #expect(X509_get0_subject_key_id(x509) != nil)
        #expect(X509_get_key_usage(x509) & UInt32(KU_DIGITAL_SIGNATURE) != 0)
        #expect(X509_get_extended_key_usage(x509) & UInt32(XKU_SSL_SERVER) != 0)
        #expect(X509_get_signature_nid(x509) == NID_ecdsa_with_SHA256)
    }
}

/// The subjectAltName names localhost and 127.0.0.1, plus extra names and addresses when given.
@Test func subjectAltNames() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt"
        _ = try SelfSignedCertificate.create(
            certificatePath: cert, keyPath: dir + "/server.key",
            dnsNames: ["chorus.home.arpa"], ipAddresses: ["192.168.1.20", "::1"])
        let x509 = try loadCertificate(cert)
        defer { X509_free(x509) }
        #expect(X509_check_host(x509, "localhost", 0, 0, nil) == 1)
        #expect(X509_check_host(x509, "chorus.home.arpa", 0, 0, nil) == 1)
        #expect(X509_check_host(x509, "other.home.arpa", 0, 0, nil) != 1)
        #expect(X509_check_ip_asc(x509, "127.0.0.1", 0) == 1)
        #expect(X509_check_ip_asc(x509, "192.168.1.20", 0) == 1)
        #expect(X509_check_ip_asc(x509, "::1", 0) == 1)
        #expect(X509_check_ip_asc(x509, "192.168.1.21", 0) != 1)
    }
}

/// The key file holds an EC P-256 key that matches the certificate's public key.
@Test func keyIsP256AndMatchesCertificate() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", keyPath = dir + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: cert, keyPath: keyPath)
        let key = try loadKey(keyPath)
        defer { EVP_PKEY_free(key) }
        #expect(EVP_PKEY_get_id(key) == EVP_PKEY_EC)
        #expect(EVP_PKEY_get_bits(key) == 256)
        var group = [CChar](repeating: 0, count: 64)
        var groupLength = 0
        #expect(EVP_PKEY_get_group_name(key, &group, group.count, &groupLength) == 1)
        #expect(String(decoding: group.prefix(groupLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1")
        let x509 = try loadCertificate(cert)
        defer { X509_free(x509) }
        #expect(X509_check_private_key(x509, key) == 1)
    }
}

/// Reading a missing certificate file throws a CryptoError naming the path and the reason.
@Test func unreadableCertificateNamesPath() {
    let path = "/nonexistent-chorus/dir/server.crt"
    let error = #expect(throws: CryptoError.self) { try CertificateFingerprint.sha256(pemFile: path) }
    #expect(error?.message.contains(path) == true)
    #expect(error?.message.contains("No such file or directory") == true)
}

/// A file that is not PEM throws a CryptoError naming the path.
@Test func garbageCertificateNamesPath() throws {
    try withTemporaryDirectory { dir in
        let path = dir + "/garbage.crt"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a certificate\n".utf8)))
        let error = #expect(throws: CryptoError.self) { try CertificateFingerprint.sha256(pemFile: path) }
        #expect(error?.message.contains(path) == true)
    }
}

/// Writing into a directory that does not exist throws a CryptoError naming the path.
@Test func unwritablePathNamesPath() {
    let key = "/nonexistent-chorus/dir/server.key"
    let error = #expect(throws: CryptoError.self) {
        try SelfSignedCertificate.create(certificatePath: "/nonexistent-chorus/dir/server.crt", keyPath: key)
    }
    #expect(error?.message.contains(key) == true)
}

/// Invalid extra names or addresses, and a nonsensical validity, are refused before anything is written.
@Test func invalidInputsAreRefused() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", key = dir + "/server.key"
        #expect(throws: CryptoError.self) {
            try SelfSignedCertificate.create(certificatePath: cert, keyPath: key, dnsNames: ["bad,name"])
        }
        #expect(throws: CryptoError.self) {
            try SelfSignedCertificate.create(certificatePath: cert, keyPath: key, ipAddresses: ["300.1.1.1"])
        }
        #expect(throws: CryptoError.self) {
            try SelfSignedCertificate.create(certificatePath: cert, keyPath: key, days: 0)
        }
        #expect(!FileManager.default.fileExists(atPath: key))
        #expect(!FileManager.default.fileExists(atPath: cert))
    }
}

/// A real TLS handshake over a memory BIO pair: the server loads the created files, the client trusts the
/// certificate through SSL_CTX_load_verify_locations and checks the host name, as the Chorus client does.
@Test func tlsHandshakeTrustsCertificateAsCAFile() throws {
    try withTemporaryDirectory { dir in
        let cert = dir + "/server.crt", key = dir + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: cert, keyPath: key)
        #expect(try handshake(certificate: cert, key: key, host: "localhost") == nil)
        #expect(try handshake(certificate: cert, key: key, host: "127.0.0.1") == nil)
        #expect(try handshake(certificate: cert, key: key, host: "example.com") != nil)
    }
}

/// Runs client and server handshakes in turn until both finish; nil on success, else the client's verify error.
private func handshake(certificate: String, key: String, host: String) throws -> String? {
    guard let serverContext = SSL_CTX_new(TLS_server_method()), let clientContext = SSL_CTX_new(TLS_client_method()) else {
        throw CryptoError("cannot create SSL contexts")
    }
    defer { SSL_CTX_free(serverContext); SSL_CTX_free(clientContext) }
    guard SSL_CTX_use_certificate_file(serverContext, certificate, SSL_FILETYPE_PEM) == 1,
          SSL_CTX_use_PrivateKey_file(serverContext, key, SSL_FILETYPE_PEM) == 1,
          SSL_CTX_check_private_key(serverContext) == 1,
          SSL_CTX_load_verify_locations(clientContext, certificate, nil) == 1
    else { throw CryptoError("cannot load certificate or key") }
    SSL_CTX_set_verify(clientContext, SSL_VERIFY_PEER, nil)

    guard let server = SSL_new(serverContext), let client = SSL_new(clientContext) else { throw CryptoError("cannot create SSL") }
    defer { SSL_free(server); SSL_free(client) }
    let isAddress = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(client), host) == 1
    if !isAddress {
        ERR_clear_error()
        guard SSL_set1_host(client, host) == 1 else { throw CryptoError("cannot set host") }
        _ = copenssl_set_host_name(client, host)
    }
    var clientEnd: OpaquePointer?, serverEnd: OpaquePointer?
    guard BIO_new_bio_pair(&clientEnd, 0, &serverEnd, 0) == 1 else { throw CryptoError("cannot create BIO pair") }
    SSL_set_bio(client, clientEnd, clientEnd)  // each SSL now owns its end
    SSL_set_bio(server, serverEnd, serverEnd)
    SSL_set_connect_state(client)
    SSL_set_accept_state(server)

    var clientDone = false, serverDone = false
    for _ in 0..<50 where !(clientDone && serverDone) {
        for (ssl, isClient) in [(client, true), (server, false)] where !(isClient ? clientDone : serverDone) {
            let result = SSL_do_handshake(ssl)
            if result == 1 {
                if isClient { clientDone = true } else { serverDone = true }
                continue
            }
            let error = SSL_get_error(ssl, result)
            if error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE {
                ERR_clear_error()
                let verify = SSL_get_verify_result(client)
                return verify == X509_V_OK ? "handshake failed" : String(cString: X509_verify_cert_error_string(verify))
            }
        }
    }
    guard clientDone && serverDone else { return "handshake did not finish" }
    return SSL_get_verify_result(client) == X509_V_OK ? nil : "verify failed"
}

import COpenSSL
import Foundation

/// The self-signed certificate chorusd makes when certs/server.crt or server.key is missing.
public enum SelfSignedCertificate {
    /// Extensions other than subjectAltName, in OpenSSL config syntax.
    /// CA:FALSE (an end-entity certificate, as RFC 5280 wants for a server) was chosen over the
    /// `openssl req -x509` style CA:TRUE: with OpenSSL 3 a self-signed CA:FALSE certificate still verifies when
    /// clients pass it as their CA file (SSL_CTX_load_verify_locations, Python's cafile, s_client -CAfile),
    /// including under X509_STRICT, and clients that refuse a CA certificate as a leaf (rustls) accept it.
    static let extensions: [(nid: Int32, value: String)] = [
        (NID_basic_constraints, "critical,CA:FALSE"),
        (NID_key_usage, "critical,digitalSignature"),
        (NID_ext_key_usage, "serverAuth"),
        (NID_subject_key_identifier, "hash"),
        // Strict RFC 5280 verifiers (Python's cryptography, used by sslyze) require it; with
        // the certificate as its own issuer it repeats the subject key identifier.
        (NID_authority_key_identifier, "keyid:always"),
    ]

    /// Creates an ECDSA P-256 key and a self-signed X.509 v3 certificate with the OpenSSL API:
    /// CN=`commonName`, random 128-bit serial, valid from one hour ago (clock skew) for `days` days,
    /// subjectAltName always holding DNS:localhost and IP:127.0.0.1 plus the names given, signed with SHA-256.
    /// Writes the key as PKCS#8 PEM (mode 0600) and the certificate as PEM (mode 0644).
    /// Returns the certificate's SHA-256 fingerprint, "AB:CD:…".
    public static func create(
        certificatePath: String, keyPath: String, commonName: String = "localhost",
        dnsNames: [String] = ["localhost"], ipAddresses: [String] = ["127.0.0.1"], days: Int = 365
    ) throws -> String {
        guard (1...36_500).contains(days) else { throw CryptoError("certificate validity must be 1...36500 days, not \(days)") }
        ERR_clear_error()

        guard let key = copenssl_ec_p256_key() else { throw CryptoError.openSSL("cannot create P-256 key") }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw CryptoError.openSSL("cannot allocate certificate") }
        defer { X509_free(certificate) }

        guard X509_set_version(certificate, 2) == 1 else { throw CryptoError.openSSL("cannot set certificate version") }
        try setSerial(certificate)
        try setValidity(certificate, days: days)
        try setName(certificate, commonName: commonName)
        guard X509_set_pubkey(certificate, key) == 1 else { throw CryptoError.openSSL("cannot set certificate key") }
        try addExtensions(certificate)
        try addSubjectAltName(certificate, dnsNames: dnsNames, ipAddresses: ipAddresses)
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw CryptoError.openSSL("cannot sign certificate") }

        let keyPEM = try pem("private key") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
        let certificatePEM = try pem("certificate") { PEM_write_bio_X509($0, certificate) }
        guard let fingerprint = CertificateFingerprint.sha256(certificate: certificate) else {
            throw CryptoError.openSSL("cannot hash certificate")
        }
        try PEMFile.write(keyPEM, to: keyPath, mode: 0o600, what: "private key")
        try PEMFile.write(certificatePEM, to: certificatePath, mode: 0o644, what: "certificate")
        return fingerprint
    }

    /// 16 random bytes read as an unsigned number: positive by construction, and unique enough that
    /// clients never see two different certificates with the same issuer and serial.
    private static func setSerial(_ certificate: OpaquePointer) throws {
        var bytes = SecureRandom.bytes(16)
        if bytes.allSatisfy({ $0 == 0 }) { bytes[15] = 1 }
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw CryptoError.openSSL("cannot build serial number")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw CryptoError.openSSL("cannot set serial number")
        }
    }

    /// Starts an hour in the past so a client whose clock runs a little behind still accepts it.
    private static func setValidity(_ certificate: OpaquePointer, days: Int) throws {
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
              X509_time_adj_ex(X509_getm_notAfter(certificate), Int32(days), -3600, nil) != nil
        else { throw CryptoError.openSSL("cannot set certificate validity") }
    }

    /// Subject and issuer are the same name, which is what makes the certificate self-issued.
    private static func setName(_ certificate: OpaquePointer, commonName: String) throws {
        guard let name = X509_get_subject_name(certificate) else { throw CryptoError.openSSL("cannot read subject name") }
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, commonName, -1, -1, 0) == 1 else {
            throw CryptoError.openSSL("invalid common name \"\(commonName)\"")
        }
        guard X509_set_issuer_name(certificate, name) == 1 else { throw CryptoError.openSSL("cannot set issuer name") }
    }

    private static func addExtensions(_ certificate: OpaquePointer) throws {
        var context = X509V3_CTX()
        // Issuer and subject are the same certificate; the subject key identifier is hashed from its key.
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw CryptoError.openSSL("cannot build extension \(value)")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else { throw CryptoError.openSSL("cannot add extension \(value)") }
        }
    }

    /// Built from GENERAL_NAME values rather than a config string, so a name containing ',' or ':'
    /// cannot smuggle in extra entries.
    private static func addSubjectAltName(_ certificate: OpaquePointer, dnsNames: [String], ipAddresses: [String]) throws {
        var names: [String] = []
        for name in ["localhost"] + dnsNames where !names.contains(where: { $0.lowercased() == name.lowercased() }) {
            guard isValidDNSName(name) else { throw CryptoError("invalid DNS name \"\(name)\" for the certificate") }
            names.append(name)
        }
        var addresses: [String] = []
        for address in ["127.0.0.1"] + ipAddresses where !addresses.contains(address) {
            addresses.append(address)
        }

        guard let stack = OPENSSL_sk_new_null() else { throw CryptoError.openSSL("cannot allocate subjectAltName") }
        // GENERAL_NAMES_free frees the stack and every name pushed onto it.
        defer { GENERAL_NAMES_free(stack) }

        for name in names {
            guard let entry = GENERAL_NAME_new() else { throw CryptoError.openSSL("cannot allocate DNS name") }
            guard let text = ASN1_IA5STRING_new() else {
                GENERAL_NAME_free(entry)
                throw CryptoError.openSSL("cannot allocate DNS name")
            }
            GENERAL_NAME_set0_value(entry, GEN_DNS, UnsafeMutableRawPointer(text))
            guard ASN1_STRING_set(text, name, Int32(name.utf8.count)) == 1,
                  OPENSSL_sk_push(stack, entry) > 0
            else {
                GENERAL_NAME_free(entry)
                throw CryptoError.openSSL("cannot add DNS name \(name)")
            }
        }
        for address in addresses {
            guard let octets = a2i_IPADDRESS(address) else {
                ERR_clear_error()
                throw CryptoError("invalid IP address \"\(address)\" for the certificate")
            }
            guard let entry = GENERAL_NAME_new() else {
                ASN1_OCTET_STRING_free(octets)
                throw CryptoError.openSSL("cannot allocate IP address")
            }
            GENERAL_NAME_set0_value(entry, GEN_IPADD, UnsafeMutableRawPointer(octets))
            guard OPENSSL_sk_push(stack, entry) > 0 else {
                GENERAL_NAME_free(entry)
                throw CryptoError.openSSL("cannot add IP address \(address)")
            }
        }
        guard X509_add1_ext_i2d(certificate, NID_subject_alt_name, UnsafeMutableRawPointer(stack), 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw CryptoError.openSSL("cannot add subjectAltName")
        }
    }

    /// Letters, digits, '-', '.', and a leading "*." for wildcards; at most 253 characters.
    public static func isValidDNSName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        let body = name.hasPrefix("*.") ? name.dropFirst(2) : Substring(name)
        guard !body.isEmpty, !body.hasPrefix("."), !body.hasSuffix("."), !body.contains("..") else { return false }
        return body.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    /// Serialises via a memory BIO so nothing touches the disk until everything has succeeded.
    private static func pem(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("cannot allocate buffer for \(what)") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw CryptoError.openSSL("cannot encode \(what)") }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_bio_mem_data(bio, &data)
        guard length > 0, let data else { throw CryptoError.openSSL("cannot encode \(what)") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}

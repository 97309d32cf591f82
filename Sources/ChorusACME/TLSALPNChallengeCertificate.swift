import ChorusCrypto
import COpenSSL

/// The certificate that answers a tls-alpn-01 challenge (RFC 8737 §3): self-signed, for
/// the one name, with the critical id-pe-acmeIdentifier extension holding the SHA-256 of
/// the key authorization as an OCTET STRING. Made with a throwaway P-256 key.
public struct TLSALPNChallengeCertificate: Sendable {
    public static let acmeIdentifierOID = "1.3.6.1.5.5.7.1.31"

    public let certificatePEM: [UInt8]
    public let keyPEM: [UInt8]

    public init(name: String, keyAuthorization: String) throws {
        ERR_clear_error()
        guard let key = copenssl_ec_p256_key() else { throw OpenSSLOutput.failure("cannot make a challenge key") }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw OpenSSLOutput.failure("cannot allocate a challenge certificate") }
        defer { X509_free(certificate) }
        let serial = SecureRandom.bytes(8)
        guard X509_set_version(certificate, 2) == 1,
              let number = BN_bin2bn(serial, Int32(serial.count), nil)
        else { throw OpenSSLOutput.failure("cannot start the challenge certificate") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil,
              X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), 7 * 86_400) != nil,
              let subject = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, name, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, subject) == 1,
              X509_set_pubkey(certificate, key) == 1
        else { throw OpenSSLOutput.failure("cannot fill in the challenge certificate for \(name)") }

        let names = try OpenSSLOutput.dnsNames([name])
        defer { GENERAL_NAMES_free(names) }
        guard X509_add1_ext_i2d(certificate, NID_subject_alt_name, UnsafeMutableRawPointer(names), 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw OpenSSLOutput.failure("cannot add subjectAltName")
        }
        try Self.addACMEIdentifier(certificate, digest: Digest.sha256(Array(keyAuthorization.utf8)))
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw OpenSSLOutput.failure("cannot sign the challenge certificate") }

        certificatePEM = try OpenSSLOutput.bytes("challenge certificate") { PEM_write_bio_X509($0, certificate) }
        keyPEM = try OpenSSLOutput.bytes("challenge key") { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    /// The extension's value is the DER of `OCTET STRING (SIZE (32))`: tag 4, length 32.
    private static func addACMEIdentifier(_ certificate: OpaquePointer, digest: [UInt8]) throws {
        guard let object = OBJ_txt2obj(acmeIdentifierOID, 1) else { throw OpenSSLOutput.failure("cannot make the acmeIdentifier OID") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw OpenSSLOutput.failure("cannot allocate acmeIdentifier") }
        defer { ASN1_OCTET_STRING_free(value) }
        let encoded: [UInt8] = [0x04, UInt8(digest.count)] + digest
        guard ASN1_OCTET_STRING_set(value, encoded, Int32(encoded.count)) == 1,
              let ext = X509_EXTENSION_create_by_OBJ(nil, object, 1, value)
        else { throw OpenSSLOutput.failure("cannot build acmeIdentifier") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(certificate, ext, -1) == 1 else { throw OpenSSLOutput.failure("cannot add acmeIdentifier") }
    }
}

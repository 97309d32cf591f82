import ChorusACME
import ChorusCrypto
import COpenSSL
import Foundation
import Testing

/// The certificates ChorusACME makes, read back with OpenSSL: the tls-alpn-01 one carries
/// RFC 8737's critical acmeIdentifier with the key authorization's digest, and a chain
/// and key are checked before they are ever served.
@Suite struct ChallengeCertificateTests {
    @Test func theTLSALPNCertificateHoldsTheDigestInACriticalAcmeIdentifier() throws {
        let made = try TLSALPNChallengeCertificate(name: "chores.example.org", keyAuthorization: "token.thumbprint")
        let certificate = try #require(Self.certificate(made.certificatePEM))
        defer { X509_free(certificate) }
        let oid = try #require(OBJ_txt2obj("1.3.6.1.5.5.7.1.31", 1))
        defer { ASN1_OBJECT_free(oid) }
        let index = X509_get_ext_by_OBJ(certificate, oid, -1)
        try #require(index >= 0)
        let ext = try #require(X509_get_ext(certificate, index))
        #expect(X509_EXTENSION_get_critical(ext) == 1)
        let data = try #require(X509_EXTENSION_get_data(ext))
        let bytes = Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: Int(ASN1_STRING_length(data))))
        #expect(bytes == [0x04, 0x20] + Digest.sha256(Array("token.thumbprint".utf8)))
        #expect(CertificateNames.subjectAltNames(certificate: certificate) == ["DNS:chores.example.org"])
    }

    @Test func aChainAndKeyAreReadAndChecked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("acme-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try SelfSignedCertificate.create(certificatePath: folder + "/a.crt", keyPath: folder + "/a.key",
                                             dnsNames: ["chores.example.org"], days: 90)
        _ = try SelfSignedCertificate.create(certificatePath: folder + "/b.crt", keyPath: folder + "/b.key")
        let chain = try String(contentsOfFile: folder + "/a.crt", encoding: .utf8)
        let key = try String(contentsOfFile: folder + "/a.key", encoding: .utf8)
        let issued = try IssuedCertificate(chainPEM: chain, keyPEM: key)
        #expect(issued.names.contains("chores.example.org"))
        // Valid from an hour ago for 90 days, give or take the clock's second.
        #expect(abs(issued.notAfter - issued.notBefore - 90 * 86_400) <= 1)

        #expect(throws: ACMEError.self) { try IssuedCertificate(chainPEM: "not a certificate", keyPEM: key) }
        #expect(throws: ACMEError.self) { try IssuedCertificate(chainPEM: chain, keyPEM: "") }
        let otherKey = try String(contentsOfFile: folder + "/b.key", encoding: .utf8)
        #expect(throws: ACMEError.self) { try IssuedCertificate(chainPEM: chain, keyPEM: otherKey) }
    }

    static func certificate(_ pem: [UInt8]) -> OpaquePointer? {
        pem.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
    }
}

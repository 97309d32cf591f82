import COpenSSL
import Testing
@testable import ChorusCrypto

/// An INTEGER of a 32-byte unsigned number, written by hand (X.690 §8.3): shortest form, a 0x00
/// in front when the top bit is set.
private func derInteger(_ number: ArraySlice<UInt8>) -> [UInt8] {
    var digits = Array(number.drop { $0 == 0 })
    if digits.isEmpty { digits = [0] }
    if digits[0] & 0x80 != 0 { digits.insert(0, at: 0) }
    return [0x02, UInt8(digits.count)] + digits
}

/// R || S as DER by hand, independent of ECDSASignatureForm.
private func handDER(_ raw: [UInt8]) -> [UInt8] {
    let body = derInteger(raw[0..<32]) + derInteger(raw[32..<64])
    return [0x30, UInt8(body.count)] + body
}

/// DER as R || S by hand: two INTEGERs, each left-padded to 32 bytes.
private func handRaw(_ der: [UInt8]) -> [UInt8] {
    precondition(der[0] == 0x30 && der[2] == 0x02)
    let rLength = Int(der[3])
    let r = Array(der[4..<4 + rLength].drop { $0 == 0 })
    let sStart = 4 + rLength + 2
    let s = Array(der[sStart..<sStart + Int(der[sStart - 1])].drop { $0 == 0 })
    return [UInt8](repeating: 0, count: 32 - r.count) + r + [UInt8](repeating: 0, count: 32 - s.count) + s
}

/// OpenSSL's own verifier, on the DER form: true when the signature holds.
private func openSSLVerifies(_ der: [UInt8], _ message: [UInt8], _ key: P256PublicKey) -> Bool {
    let context = EVP_MD_CTX_new()
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.key) == 1 else { return false }
    let verified = EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    ERR_clear_error()
    return verified
}

/// OpenSSL's own signer, giving DER.
private func openSSLSign(_ message: [UInt8], _ key: P256PrivateKey) -> [UInt8] {
    let context = EVP_MD_CTX_new()
    defer { EVP_MD_CTX_free(context) }
    var length = 0
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.key) == 1,
          EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { return [] }
    var der = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &der, &length, message, message.count) == 1 else { return [] }
    return Array(der.prefix(length))
}

/// Our signatures are 64 bytes and OpenSSL verifies them (as DER made by hand); OpenSSL's
/// signatures, cut to R || S by hand, pass our verifier. Many rounds, so short r or s occur.
@Test func es256AgreesWithOpenSSL() throws {
    let key = try P256PrivateKey.generate()
    for round in 0..<64 {
        let message = Array("round \(round)".utf8)
        let signature = try ES256.sign(message, with: key)
        #expect(signature.count == 64)
        #expect(openSSLVerifies(handDER(signature), message, key.publicKey))
        #expect(!openSSLVerifies(handDER(signature), message + [0], key.publicKey))
        let theirs = openSSLSign(message, key)
        try ES256.verify(handRaw(theirs), of: message, with: key.publicKey)
        #expect(try ECDSASignatureForm.raw(fromDER: theirs) == handRaw(theirs))
        #expect(try ECDSASignatureForm.der(fromRaw: handRaw(theirs)) == theirs)
    }
}

/// A changed message, signature or key, a DER signature and wrong lengths all fail.
@Test func es256RefusesWhatDoesNotVerify() throws {
    let key = try P256PrivateKey.generate()
    let message = Array("payload".utf8)
    let signature = try ES256.sign(message, with: key)
    try ES256.verify(signature, of: message, with: key.publicKey)
    #expect(throws: CryptoError.self) { try ES256.verify(signature, of: message + [1], with: key.publicKey) }
    #expect(throws: CryptoError.self) { try ES256.verify(signature, of: message, with: P256PrivateKey.generate().publicKey) }
    var changed = signature
    changed[40] ^= 0x04
    #expect(throws: CryptoError.self) { try ES256.verify(changed, of: message, with: key.publicKey) }
    #expect(throws: CryptoError.self) { try ES256.verify(handDER(signature), of: message, with: key.publicKey) }
    #expect(throws: CryptoError.self) { try ES256.verify(Array(signature.prefix(63)), of: message, with: key.publicKey) }
    #expect(throws: CryptoError.self) { try ES256.verify([UInt8](repeating: 0, count: 64), of: message, with: key.publicKey) }
    #expect(throws: CryptoError.self) { try ECDSASignatureForm.raw(fromDER: []) }
    #expect(throws: CryptoError.self) { try ECDSASignatureForm.raw(fromDER: [0x30, 0x02, 0x02, 0x00]) }
    #expect(throws: CryptoError.self) { try ECDSASignatureForm.raw(fromDER: handDER(signature) + [0]) }
}

/// RFC 9449 Figure 2's DPoP proof is an ES256 JWT by the key of its `jwk` header (the key
/// whose thumbprint Figure 9 gives): a signature made elsewhere that must verify here.
@Test func es256VerifiesRFC9449ExampleProof() throws {
    let proof = "eyJ0eXAiOiJkcG9wK2p3dCIsImFsZyI6IkVTMjU2IiwiandrIjp7Imt0eSI6IkVDIiwieCI6Imw4dEZyaHgtMzR0VjNoUklDUkRZOXpDa0RscEJoRjQyVVFVZldWQVdCRnMiLCJ5IjoiOVZFNGpmX09rX282NHpiVFRsY3VOSmFqSG10NnY5VERWclUwQ2R2R1JEQSIsImNydiI6IlAtMjU2In19.eyJqdGkiOiItQndDM0VTYzZhY2MybFRjIiwiaHRtIjoiUE9TVCIsImh0dSI6Imh0dHBzOi8vc2VydmVyLmV4YW1wbGUuY29tL3Rva2VuIiwiaWF0IjoxNTYyMjYyNjE2fQ.2-GxA6T8lP4vfrg8v-FdWP0A0zdrj8igiMLvqRMUvwnQg4PtFLbdLXiOSsX0x7NVY-FNyJK70nfbV37xRZT3Lg"
    let parts = proof.split(separator: ".").map(String.init)
    let key = try P256PublicKey(uncompressedPoint: [0x04] + vectorBytes(RFC9449Example.x) + vectorBytes(RFC9449Example.y))
    let signingInput = Array((parts[0] + "." + parts[1]).utf8)
    let signature = vectorBytes(parts[2])
    try ES256.verify(signature, of: signingInput, with: key)
    #expect(throws: CryptoError.self) { try ES256.verify(signature, of: signingInput + [0x20], with: key) }
}

import Testing
@testable import ChorusCrypto

/// Equal arrays compare equal; any differing byte or length compares unequal.
@Test func constantTimeEqualsCases() {
    #expect(constantTimeEquals([], []))
    #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
    #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
    #expect(!constantTimeEquals([0, 2, 3], [1, 2, 3]))
    #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
    #expect(!constantTimeEquals([], [0]))
}

/// SHA-256 matches the FIPS 180-2 vectors for "abc" and the empty string.
@Test func sha256KnownVectors() {
    #expect(Digest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    let bytes = Digest.sha256(Array("abc".utf8))
    #expect(bytes.count == 32)
    #expect(bytes.first == 0xba && bytes.last == 0xad)
}

/// SHA-1 matches the FIPS 180-1 vectors for "abc" and the empty string.
@Test func sha1KnownVectors() {
    #expect(Hex.lowercase(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    #expect(Hex.lowercase(Digest.sha1([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
}

/// Random output has the requested length, hex is lowercase, and repeated calls differ.
@Test func secureRandomLengthsAndNonRepetition() {
    #expect(SecureRandom.bytes(0).isEmpty)
    #expect(SecureRandom.bytes(-5).isEmpty)
    #expect(SecureRandom.bytes(1).count == 1)
    #expect(SecureRandom.bytes(32).count == 32)
    #expect(SecureRandom.bytes(100_000).count == 100_000)
    let token = SecureRandom.hex(16)
    #expect(token.count == 32)
    #expect(token.allSatisfy { "0123456789abcdef".contains($0) })
    var seen = Set<[UInt8]>()
    for _ in 0..<100 { seen.insert(SecureRandom.bytes(16)) }
    #expect(seen.count == 100)
    #expect(SecureRandom.hex(16) != SecureRandom.hex(16))
}

/// Hex helpers produce the two spellings used for tokens and fingerprints.
@Test func hexSpellings() {
    #expect(Hex.lowercase([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
    #expect(Hex.colonSeparatedUppercase([0x00, 0x0f, 0xa0, 0xff]) == "00:0F:A0:FF")
    #expect(Hex.colonSeparatedUppercase([]) == "")
}

/// CryptoError prints its message.
@Test func cryptoErrorDescription() {
    #expect(CryptoError("boom").description == "boom")
    #expect("\(CryptoError("boom"))" == "boom")
}

import Testing
@testable import ChorusCrypto

/// RFC 4648 §10's vectors, in the URL alphabet and without padding.
@Test func base64URLEncodesRFC4648Vectors() throws {
    let cases = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
    for (plain, encoded) in cases {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }
}

/// The two letters that differ from standard base64: 62 is '-', 63 is '_'.
@Test func base64URLUsesTheURLAlphabet() throws {
    #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
    #expect(Base64URL.encode([0xff, 0xff, 0xff]) == "____")
}

/// Padding is optional on input but must be whole and at the end.
@Test func base64URLAcceptsPaddingOnlyWhenWellFormed() throws {
    #expect(try Base64URL.decode("Zg==") == Array("f".utf8))
    #expect(try Base64URL.decode("Zm8=") == Array("fo".utf8))
    for bad in ["Zg=", "Zg===", "Zm9v=", "Zm9v====", "=Zg", "Z=g=", "Zm8=Zg", "=", "===="] {
        #expect(throws: CryptoError.self, "\(bad)") { try Base64URL.decode(bad) }
    }
}

/// Standard-alphabet letters, whitespace, other bytes and impossible lengths are refused.
@Test func base64URLRefusesEverythingElse() {
    for bad in ["Zm+v", "Zm/v", "Zm 9v", "Zm9v\n", " Zm9v", "Z", "Zm9vY", "Zm9v.", "Zé9v", "Zm\u{0}v"] {
        #expect(throws: CryptoError.self, "\(bad)") { try Base64URL.decode(bad) }
    }
}

/// "Zh" would decode to "f" with a stray bit: only the canonical "Zg" is accepted.
@Test func base64URLRefusesNonZeroUnusedBits() {
    #expect(throws: CryptoError.self) { try Base64URL.decode("Zh") }
    #expect(throws: CryptoError.self) { try Base64URL.decode("Zm9") }
    #expect(throws: CryptoError.self) { try Base64URL.decode("Zh==") }
}

/// Every length from 0 to 70 round-trips and matches Foundation's base64, translated.
@Test func base64URLMatchesFoundation() throws {
    for length in 0...70 {
        let bytes = SecureRandom.bytes(length)
        let encoded = Base64URL.encode(bytes)
        #expect(encoded == vectorText(bytes))
        #expect(try Base64URL.decode(encoded) == bytes)
    }
}

/// The fixed-length reader says what was wrong.
@Test func base64URLFixedLengthReadNamesTheValue() {
    do {
        _ = try Base64URL.decode("Zm9v", length: 16, what: "push auth secret")
        Issue.record("a 3-byte value passed as 16 bytes")
    } catch let error as CryptoError {
        #expect(error.message == "push auth secret must be 16 bytes, not 3")
    } catch {
        Issue.record("unexpected \(error)")
    }
}

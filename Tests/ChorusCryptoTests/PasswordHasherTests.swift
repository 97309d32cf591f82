import Testing
@testable import ChorusCrypto

/// Cheap parameters so the suite stays fast; one test below uses the real default.
private let fast = PasswordHasher(parameters: ScryptParameters(logN: 10))

/// The encoded form is "$scrypt$ln=10,r=8,p=1$<22 chars>$<43 chars>" and the password verifies against it.
@Test func hashFormatAndRoundTrip() throws {
    let encoded = try fast.hash("correct horse battery staple")
    let fields = encoded.split(separator: "$", omittingEmptySubsequences: false)
    #expect(fields.count == 5)
    #expect(fields[1] == "scrypt")
    #expect(fields[2] == "ln=10,r=8,p=1")
    #expect(fields[3].count == 22)  // 16 bytes, unpadded base64
    #expect(fields[4].count == 43)  // 32 bytes, unpadded base64
    #expect(!fields[3].contains("=") && !fields[4].contains("="))
    #expect(fast.verify("correct horse battery staple", against: encoded))
    #expect(PasswordHasher.parameters(of: encoded) == ScryptParameters(logN: 10))
    #expect(!fast.needsRehash(encoded))
}

/// The default cost (N=2^17, r=8, 128 MiB) works, proving maxmem is raised above OpenSSL's 32 MiB cap.
@Test func defaultParametersWork() throws {
    let hasher = PasswordHasher()
    #expect(hasher.parameters == ScryptParameters(logN: 17, r: 8, p: 1))
    let encoded = try hasher.hash("hunter2")
    #expect(encoded.hasPrefix("$scrypt$ln=17,r=8,p=1$"))
    #expect(hasher.verify("hunter2", against: encoded))
}

/// A wrong password, or one differing only in case or trailing bytes, does not verify.
@Test func wrongPasswordFails() throws {
    let encoded = try fast.hash("secret")
    #expect(!fast.verify("Secret", against: encoded))
    #expect(!fast.verify("secret ", against: encoded))
    #expect(!fast.verify("", against: encoded))
}

/// Long passwords are not truncated: two 1024-byte passwords differing in the last byte do not match.
@Test func longPasswordsAreNotTruncated() throws {
    let base = String(repeating: "a", count: 1023)
    let encoded = try fast.hash(base + "b")
    #expect(fast.verify(base + "b", against: encoded))
    #expect(!fast.verify(base + "c", against: encoded))
}

/// Empty and non-ASCII passwords round-trip.
@Test func emptyAndUnicodePasswords() throws {
    #expect(fast.verify("", against: try fast.hash("")))
    let encoded = try fast.hash("pässwörd 🔑")
    #expect(fast.verify("pässwörd 🔑", against: encoded))
    #expect(!fast.verify("passwort 🔑", against: encoded))
}

/// The same password hashed twice gets different salts and therefore different strings.
@Test func differentSaltsEachTime() throws {
    let first = try fast.hash("same")
    let second = try fast.hash("same")
    #expect(first != second)
    let firstSalt = first.split(separator: "$")[2]
    let secondSalt = second.split(separator: "$")[2]
    #expect(firstSalt != secondSalt)
    #expect(fast.verify("same", against: first) && fast.verify("same", against: second))
}

/// A hash made with other parameters still verifies, and needsRehash asks for an upgrade.
@Test func otherParametersVerifyAndNeedRehash() throws {
    let old = PasswordHasher(parameters: ScryptParameters(logN: 9, r: 4, p: 2))
    let encoded = try old.hash("upgrade me")
    #expect(encoded.hasPrefix("$scrypt$ln=9,r=4,p=2$"))
    #expect(PasswordHasher.parameters(of: encoded) == ScryptParameters(logN: 9, r: 4, p: 2))
    #expect(fast.verify("upgrade me", against: encoded))
    #expect(!fast.verify("upgrade you", against: encoded))
    #expect(fast.needsRehash(encoded))
    #expect(!old.needsRehash(encoded))
}

/// Malformed strings verify as false, report no parameters and need a rehash, without crashing.
@Test(arguments: [
    "",
    "$",
    "plaintext",
    "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA",
    "$scrypt$ln=10,r=8,p=1$$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$r=8,ln=10,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=+10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=x,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=99999999999999999999999,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=0,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=23,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=22,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=33,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8,p=17$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=0,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8,p=1$c2FsdH*hbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA==$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA",
    "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g$extra",
    "scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
    "$SCRYPT$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
])
func malformedHashesAreRejected(encoded: String) {
    #expect(!fast.verify("salt", against: encoded))
    #expect(PasswordHasher.parameters(of: encoded) == nil)
    #expect(fast.needsRehash(encoded))
}

/// A well-formed string with a made-up hash is parsed but simply does not match.
@Test func wellFormedButWrongHashDoesNotMatch() {
    let encoded = "$scrypt$ln=10,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g"
    #expect(PasswordHasher.parameters(of: encoded) == ScryptParameters(logN: 10))
    #expect(!fast.verify("salt", against: encoded))
    #expect(!fast.needsRehash(encoded))
}

/// Hashing with out-of-range parameters throws instead of allocating or crashing.
@Test func absurdParametersThrowWhenHashing() {
    #expect(throws: CryptoError.self) { try PasswordHasher(parameters: ScryptParameters(logN: 0)).hash("x") }
    #expect(throws: CryptoError.self) { try PasswordHasher(parameters: ScryptParameters(logN: 40)).hash("x") }
    #expect(throws: CryptoError.self) { try PasswordHasher(parameters: ScryptParameters(logN: 10, r: -1)).hash("x") }
}

/// The scrypt derivation matches the RFC 7914 test vector (password "password", salt "NaCl", N=1024, r=8, p=16).
@Test func scryptMatchesRFC7914() throws {
    let derived = try Scrypt.derive(
        password: Array("password".utf8), salt: Array("NaCl".utf8),
        parameters: ScryptParameters(logN: 10, r: 8, p: 16), length: 64)
    #expect(Hex.lowercase(derived) == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
        + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
}

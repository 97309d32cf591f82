import Testing
@testable import ChorusCrypto

/// RFC 8291 §5 and Appendix A: the published keys, salt and message, and the intermediate
/// values and body they give.
enum RFC8291Example {
    static let plaintext = Array("When I grow up, I want to be a watermelon".utf8)
    static let applicationServerPublic = vectorBytes("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    static let applicationServerPrivate = vectorBytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    static let userAgentPublic = vectorBytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
    static let userAgentPrivate = vectorBytes("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
    static let salt = vectorBytes("DGv6ra1nlYgDCS1FRnbzlw")
    static let authSecret = vectorBytes("BTBZMqHH6r4Tts7J_aSIgg")
    static let ecdhSecret = vectorBytes("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")
    static let keyInfo = vectorBytes("V2ViUHVzaDogaW5mbwAEJXGyvs3942BVGq8e0PTNNmwRzr5VX4m8t7GGpTM5FzFo7OLr4BhZe9MEebhuPI-OztV3ylkYfpJGmQ22ggCLDgT-M_SrDepxkU21WCP3O1SUj0EwbZIHMtu5pZpTKGSCIA5Zent7wmC6HCJ5mFgJkuk5cwAvMBKiiujwa7t45ewP")
    static let inputKey = vectorBytes("S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg")
    static let contentKey = vectorBytes("oIhVW04MRdy2XN9CiKLxTg")
    static let nonce = vectorBytes("4h_95klXJ5E_qnoN")
    static let header = vectorBytes("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
    static let ciphertext = vectorBytes("8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ")
    static let body = vectorBytes("DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
}

/// The RFC's private keys give its public keys, and ECDH gives its shared secret.
@Test func rfc8291KeysAndSharedSecret() throws {
    let server = try P256PrivateKey(scalar: RFC8291Example.applicationServerPrivate)
    let agent = try P256PrivateKey(scalar: RFC8291Example.userAgentPrivate)
    #expect(server.publicKey.uncompressedPoint == RFC8291Example.applicationServerPublic)
    #expect(agent.publicKey.uncompressedPoint == RFC8291Example.userAgentPublic)
    #expect(try server.sharedSecret(with: agent.publicKey) == RFC8291Example.ecdhSecret)
    #expect(try agent.sharedSecret(with: server.publicKey) == RFC8291Example.ecdhSecret)
}

/// Each HKDF step of Appendix A: key_info and IKM (RFC 8291 §3.4), then CEK and NONCE (RFC 8188).
@Test func rfc8291KeySchedule() throws {
    let keyInfo = Array("WebPush: info".utf8) + [0] + RFC8291Example.userAgentPublic + RFC8291Example.applicationServerPublic
    #expect(keyInfo == RFC8291Example.keyInfo)
    #expect(try HKDF.sha256(inputKey: RFC8291Example.ecdhSecret, salt: RFC8291Example.authSecret, info: keyInfo, length: 32)
        == RFC8291Example.inputKey)
    let schedule = try WebPushKeySchedule(
        sharedSecret: RFC8291Example.ecdhSecret, authSecret: RFC8291Example.authSecret,
        userAgentPoint: RFC8291Example.userAgentPublic, applicationServerPoint: RFC8291Example.applicationServerPublic,
        salt: RFC8291Example.salt)
    #expect(schedule.contentKey == RFC8291Example.contentKey)
    #expect(schedule.nonce == RFC8291Example.nonce)
}

/// With the RFC's ephemeral key and salt, the body is Appendix A's, byte for byte.
@Test func rfc8291BodyByteForByte() throws {
    let body = try WebPushEncryption.encrypt(
        RFC8291Example.plaintext, to: P256PublicKey(uncompressedPoint: RFC8291Example.userAgentPublic),
        authSecret: RFC8291Example.authSecret,
        ephemeralKey: P256PrivateKey(scalar: RFC8291Example.applicationServerPrivate), salt: RFC8291Example.salt)
    #expect(Array(body.prefix(86)) == RFC8291Example.header)
    #expect(Array(body.dropFirst(86)) == RFC8291Example.ciphertext)
    #expect(body == RFC8291Example.body)
}

/// The user agent's key and auth secret open the RFC's body to its plaintext.
@Test func rfc8291BodyDecrypts() throws {
    let agent = try P256PrivateKey(scalar: RFC8291Example.userAgentPrivate)
    #expect(try WebPushDecryption.decrypt(RFC8291Example.body, with: agent, authSecret: RFC8291Example.authSecret)
        == RFC8291Example.plaintext)
}

/// Fresh keys: what is sent decrypts, the header is as RFC 8291 §4 lays it out, and two
/// encryptions of one message differ (new salt and key each time).
@Test func webPushRoundTripWithFreshKeys() throws {
    let agent = try P256PrivateKey.generate()
    let auth = SecureRandom.bytes(16)
    for plaintext in [[], Array("{\"event\":\"dm\",\"title\":\"Ann\"}".utf8), SecureRandom.bytes(WebPushEncryption.maxPlaintextLength)] {
        let body = try WebPushEncryption.encrypt(plaintext, to: agent.publicKey, authSecret: auth)
        #expect(body.count == 86 + plaintext.count + 1 + 16)
        #expect(Array(body[16..<21]) == [0x00, 0x00, 0x10, 0x00, 65])
        #expect(try P256PublicKey(uncompressedPoint: Array(body[21..<86])) != agent.publicKey)
        #expect(try WebPushDecryption.decrypt(body, with: agent, authSecret: auth) == plaintext)
    }
    let first = try WebPushEncryption.encrypt([1, 2, 3], to: agent.publicKey, authSecret: auth)
    let second = try WebPushEncryption.encrypt([1, 2, 3], to: agent.publicKey, authSecret: auth)
    #expect(first.prefix(16) != second.prefix(16))
    #expect(first[21..<86] != second[21..<86])
}

/// The largest plaintext makes exactly a 4096-byte body; one more byte is refused.
@Test func webPushPlaintextLimit() throws {
    let agent = try P256PrivateKey.generate()
    let auth = SecureRandom.bytes(16)
    let largest = try WebPushEncryption.encrypt([UInt8](repeating: 7, count: 3993), to: agent.publicKey, authSecret: auth)
    #expect(largest.count == 4096)
    #expect(throws: CryptoError.self) {
        try WebPushEncryption.encrypt([UInt8](repeating: 7, count: 3994), to: agent.publicKey, authSecret: auth)
    }
}

/// Wrong-length auth secrets and salts are refused on both sides.
@Test func webPushRefusesWrongLengthSecrets() throws {
    let agent = try P256PrivateKey.generate()
    let server = try P256PrivateKey.generate()
    #expect(throws: CryptoError.self) { try WebPushEncryption.encrypt([1], to: agent.publicKey, authSecret: SecureRandom.bytes(15)) }
    #expect(throws: CryptoError.self) { try WebPushEncryption.encrypt([1], to: agent.publicKey, authSecret: []) }
    #expect(throws: CryptoError.self) {
        try WebPushEncryption.encrypt([1], to: agent.publicKey, authSecret: SecureRandom.bytes(16), ephemeralKey: server, salt: SecureRandom.bytes(8))
    }
    let body = try WebPushEncryption.encrypt([1], to: agent.publicKey, authSecret: SecureRandom.bytes(16))
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body, with: agent, authSecret: SecureRandom.bytes(17)) }
}

/// Any changed byte — salt, record size, key id, ciphertext, tag — and any cut is an error,
/// never a wrong plaintext.
@Test func webPushTamperingIsDetected() throws {
    let agent = try P256PrivateKey(scalar: RFC8291Example.userAgentPrivate)
    let auth = RFC8291Example.authSecret
    let body = RFC8291Example.body
    for index in [0, 15, 21, 60, 85, 86, 100, body.count - 17, body.count - 16, body.count - 1] {
        var changed = body
        changed[index] ^= 0x01
        #expect(throws: CryptoError.self, "byte \(index)") { try WebPushDecryption.decrypt(changed, with: agent, authSecret: auth) }
    }
    for length in [0, 10, 20, 21, 50, 85, 86, 87, 86 + 16, body.count - 1] {
        #expect(throws: CryptoError.self, "cut at \(length)") {
            try WebPushDecryption.decrypt(Array(body.prefix(length)), with: agent, authSecret: auth)
        }
    }
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body + [0], with: agent, authSecret: auth) }
}

/// Another subscription's auth secret or key does not open the message.
@Test func webPushWrongSecretOrKeyFails() throws {
    let agent = try P256PrivateKey(scalar: RFC8291Example.userAgentPrivate)
    var auth = RFC8291Example.authSecret
    auth[0] ^= 0x80
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(RFC8291Example.body, with: agent, authSecret: auth) }
    #expect(throws: CryptoError.self) {
        try WebPushDecryption.decrypt(RFC8291Example.body, with: P256PrivateKey.generate(), authSecret: RFC8291Example.authSecret)
    }
}

/// Header rules: a key id that is not a 65-byte point, a record size below 18, and a record
/// longer than the record size (so more than one record) are refused; so is a body over 4096
/// bytes. A record exactly as long as the record size is one record.
@Test func webPushHeaderRules() throws {
    let agent = try P256PrivateKey(scalar: RFC8291Example.userAgentPrivate)
    let auth = RFC8291Example.authSecret
    let body = RFC8291Example.body
    let record = Array(body.dropFirst(86))
    let salt = Array(body.prefix(16))
    let shortID = salt + [0, 0, 0x10, 0, 64] + Array(RFC8291Example.applicationServerPublic.prefix(64)) + record
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(shortID, with: agent, authSecret: auth) }
    let tinyRecords = salt + [0, 0, 0, 17, 65] + RFC8291Example.applicationServerPublic + record
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(tinyRecords, with: agent, authSecret: auth) }
    let twoRecords = salt + [0, 0, 0, UInt8(record.count - 1), 65] + RFC8291Example.applicationServerPublic + record
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(twoRecords, with: agent, authSecret: auth) }
    let exact = salt + [0, 0, 0, UInt8(record.count), 65] + RFC8291Example.applicationServerPublic + record
    #expect(try WebPushDecryption.decrypt(exact, with: agent, authSecret: auth) == RFC8291Example.plaintext)
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt([UInt8](repeating: 0, count: 4097), with: agent, authSecret: auth) }
}

/// Padding after the delimiter is allowed (RFC 8188 §2); a non-final delimiter (0x01) or
/// none at all is refused.
@Test func webPushDelimiterRules() throws {
    let agent = try P256PrivateKey.generate()
    let server = try P256PrivateKey.generate()
    let auth = SecureRandom.bytes(16)
    let salt = SecureRandom.bytes(16)
    let schedule = try WebPushKeySchedule(
        sharedSecret: server.sharedSecret(with: agent.publicKey), authSecret: auth,
        userAgentPoint: agent.publicKey.uncompressedPoint, applicationServerPoint: server.publicKey.uncompressedPoint, salt: salt)
    let header = salt + [0, 0, 0x10, 0, 65] + server.publicKey.uncompressedPoint
    func body(_ padded: [UInt8]) throws -> [UInt8] {
        header + (try AES128GCM.seal(padded, key: schedule.contentKey, nonce: schedule.nonce))
    }
    #expect(try WebPushDecryption.decrypt(body([9, 8, 2, 0, 0, 0]), with: agent, authSecret: auth) == [9, 8])
    #expect(try WebPushDecryption.decrypt(body([0, 2]), with: agent, authSecret: auth) == [0])
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body([9, 8, 1]), with: agent, authSecret: auth) }
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body([9, 8, 3, 0]), with: agent, authSecret: auth) }
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body([0, 0, 0]), with: agent, authSecret: auth) }
    #expect(throws: CryptoError.self) { try WebPushDecryption.decrypt(body([]), with: agent, authSecret: auth) }
}

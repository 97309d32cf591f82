import Testing
@testable import ChorusCrypto

/// P-256's group order n (SEC 2 §2.4.2).
let p256Order = hexBytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

/// A fresh key has a 32-byte scalar and an uncompressed point, and comes back from its scalar.
@Test func generatedKeyRoundTripsThroughItsScalar() throws {
    let key = try P256PrivateKey.generate()
    #expect(key.scalar.count == 32)
    #expect(key.publicKey.uncompressedPoint.count == 65)
    #expect(key.publicKey.uncompressedPoint.first == 0x04)
    let restored = try P256PrivateKey(base64URL: key.base64URL)
    #expect(restored.scalar == key.scalar)
    #expect(restored.publicKey == key.publicKey)
    #expect(key.base64URL.count == 43)
    let reread = try P256PublicKey(base64URL: key.publicKey.base64URL)
    #expect(reread == key.publicKey)
    #expect(key.publicKey.x + key.publicKey.y == Array(key.publicKey.uncompressedPoint.dropFirst()))
    #expect(try P256PrivateKey.generate().scalar != key.scalar)
}

/// The scalar d = 1 has the generator G as its public key (SEC 2 §2.4.2).
@Test func scalarOneGivesTheGenerator() throws {
    let key = try P256PrivateKey(scalar: [UInt8](repeating: 0, count: 31) + [1])
    let generator = hexBytes("04" + "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
                                 + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
    #expect(key.publicKey.uncompressedPoint == generator)
}

/// Wrong lengths, zero and anything not below the order are refused; n − 1 is the largest key.
@Test func privateKeyImportRefusesBadScalars() throws {
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: [UInt8](repeating: 1, count: 31)) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: [UInt8](repeating: 1, count: 33)) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: []) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: [UInt8](repeating: 0, count: 32)) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: p256Order) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(scalar: [UInt8](repeating: 0xff, count: 32)) }
    #expect(throws: CryptoError.self) { try P256PrivateKey(base64URL: "not base64url!") }
    var largest = p256Order
    largest[31] -= 1
    _ = try P256PrivateKey(scalar: largest)
}

/// Only a 65-byte uncompressed point on the curve is a public key.
@Test func publicKeyImportRefusesBadPoints() throws {
    let good = try P256PrivateKey.generate().publicKey.uncompressedPoint
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: Array(good.dropLast())) }
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: good + [0]) }
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: []) }
    var compressed = good
    compressed[0] = 0x02
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: compressed) }
    var offCurve = good
    offCurve[64] ^= 0x01
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: offCurve) }
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: [0x04] + [UInt8](repeating: 0, count: 64)) }
    #expect(throws: CryptoError.self) { try P256PublicKey(uncompressedPoint: [0x04] + [UInt8](repeating: 0xff, count: 64)) }
    #expect(throws: CryptoError.self) { try P256PublicKey(base64URL: "BCVx") }
}

/// ECDH gives both sides the same 32 bytes, and a third key something else.
@Test func ecdhAgreesBothWays() throws {
    let alice = try P256PrivateKey.generate()
    let bob = try P256PrivateKey.generate()
    let carol = try P256PrivateKey.generate()
    let secret = try alice.sharedSecret(with: bob.publicKey)
    #expect(secret.count == 32)
    #expect(try bob.sharedSecret(with: alice.publicKey) == secret)
    #expect(try carol.sharedSecret(with: bob.publicKey) != secret)
}

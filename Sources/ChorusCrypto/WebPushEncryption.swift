/// Encrypts a push message for one subscription (RFC 8291, `aes128gcm` of RFC 8188): a fresh
/// ephemeral P-256 key and salt per message, one record holding the plaintext and the 0x02
/// delimiter, no padding. The body goes out with `Content-Encoding: aes128gcm`.
public enum WebPushEncryption {
    public static let authSecretLength = 16
    /// RFC 8291 §4: a push service need only take 4096 bytes of body; less the 86-byte header,
    /// the 16-byte tag and the 1-byte delimiter, that leaves 3993 bytes of plaintext.
    public static let maxPlaintextLength = 3993
    /// The record size written in the header; the one record is never longer (at most 4010 bytes).
    static let recordSize: UInt32 = 4096
    /// The delimiter that ends the last (here the only) record's plaintext (RFC 8188 §2).
    static let lastRecordDelimiter: UInt8 = 0x02

    /// The body for `plaintext`, sent to the subscription whose `p256dh` is `subscriberKey`
    /// and whose `auth` is `authSecret` (16 bytes).
    public static func encrypt(_ plaintext: [UInt8], to subscriberKey: P256PublicKey, authSecret: [UInt8]) throws -> [UInt8] {
        try encrypt(plaintext, to: subscriberKey, authSecret: authSecret,
                    ephemeralKey: P256PrivateKey.generate(), salt: SecureRandom.bytes(ContentCodingHeader.saltLength))
    }

    /// The same with the ephemeral key and salt given, so RFC 8291's example can be reproduced.
    /// Internal: reusing a key and salt for two messages would reuse the AES-GCM key and nonce.
    static func encrypt(_ plaintext: [UInt8], to subscriberKey: P256PublicKey, authSecret: [UInt8],
                        ephemeralKey: P256PrivateKey, salt: [UInt8]) throws -> [UInt8] {
        guard plaintext.count <= maxPlaintextLength else {
            throw CryptoError("push message plaintext is \(plaintext.count) bytes; at most \(maxPlaintextLength) fit one 4096-byte body")
        }
        guard authSecret.count == authSecretLength else {
            throw CryptoError.wrongLength("push auth secret", expected: authSecretLength, got: authSecret.count)
        }
        guard salt.count == ContentCodingHeader.saltLength else {
            throw CryptoError.wrongLength("aes128gcm salt", expected: ContentCodingHeader.saltLength, got: salt.count)
        }
        let schedule = try WebPushKeySchedule(
            sharedSecret: ephemeralKey.sharedSecret(with: subscriberKey), authSecret: authSecret,
            userAgentPoint: subscriberKey.uncompressedPoint, applicationServerPoint: ephemeralKey.publicKey.uncompressedPoint,
            salt: salt)
        let record = try AES128GCM.seal(plaintext + [lastRecordDelimiter], key: schedule.contentKey, nonce: schedule.nonce)
        let header = ContentCodingHeader(salt: salt, recordSize: recordSize, keyID: ephemeralKey.publicKey.uncompressedPoint)
        return header.bytes + record
    }
}

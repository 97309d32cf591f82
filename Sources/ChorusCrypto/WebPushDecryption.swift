/// Decrypts a push message as a user agent does (RFC 8291 §3, RFC 8188 §2), with the
/// subscription's private key and auth secret. The server never needs it; the tests' stand-in
/// push service does, to read what the server sent. Anything but one well-formed record that
/// authenticates is an error.
public enum WebPushDecryption {
    /// RFC 8291 §4: what a push service must accept; a longer body was not meant for one.
    public static let maxBodyLength = 4096

    public static func decrypt(_ body: [UInt8], with subscriberKey: P256PrivateKey, authSecret: [UInt8]) throws -> [UInt8] {
        guard body.count <= maxBodyLength else { throw CryptoError("push message body is \(body.count) bytes, more than \(maxBodyLength)") }
        guard authSecret.count == WebPushEncryption.authSecretLength else {
            throw CryptoError.wrongLength("push auth secret", expected: WebPushEncryption.authSecretLength, got: authSecret.count)
        }
        let header = try ContentCodingHeader(parsing: body)
        guard header.keyID.count == P256PublicKey.pointLength else {
            throw CryptoError("aes128gcm key id must be the sender's 65-byte public key, not \(header.keyID.count) bytes")
        }
        let senderKey = try P256PublicKey(uncompressedPoint: header.keyID)
        let record = Array(body[header.length...])
        guard record.count > AES128GCM.tagLength else {
            throw CryptoError("push message record is \(record.count) bytes, too short for a tag and a delimiter")
        }
        guard record.count <= Int(header.recordSize) else {
            throw CryptoError("push message holds more than one record; Web Push sends exactly one")
        }
        let schedule = try WebPushKeySchedule(
            sharedSecret: subscriberKey.sharedSecret(with: senderKey), authSecret: authSecret,
            userAgentPoint: subscriberKey.publicKey.uncompressedPoint, applicationServerPoint: senderKey.uncompressedPoint,
            salt: header.salt)
        let padded = try AES128GCM.open(record, key: schedule.contentKey, nonce: schedule.nonce)
        // RFC 8188 §2: plaintext, then the delimiter, then any number of zero bytes of padding.
        guard let delimiter = padded.lastIndex(where: { $0 != 0 }) else {
            throw CryptoError("push message record has no delimiter")
        }
        guard padded[delimiter] == WebPushEncryption.lastRecordDelimiter else {
            throw CryptoError("push message record does not end with the last record's delimiter 0x02")
        }
        return Array(padded[..<delimiter])
    }
}

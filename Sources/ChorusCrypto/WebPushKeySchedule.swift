/// The content-encryption key and nonce of one Web Push message: RFC 8291 §3.3–3.4 turn the
/// ECDH secret and the subscription's auth secret into the IKM, then RFC 8188 §2.2–2.3 turn
/// the IKM and the body's salt into CEK and NONCE. Both sides run the same steps.
struct WebPushKeySchedule {
    let contentKey: [UInt8]
    let nonce: [UInt8]

    init(sharedSecret: [UInt8], authSecret: [UInt8], userAgentPoint: [UInt8], applicationServerPoint: [UInt8], salt: [UInt8]) throws {
        // key_info = "WebPush: info" || 0x00 || ua_public || as_public
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentPoint + applicationServerPoint
        let inputKey = try HKDF.sha256(inputKey: sharedSecret, salt: authSecret, info: keyInfo, length: 32)
        contentKey = try HKDF.sha256(inputKey: inputKey, salt: salt, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
                                     length: AES128GCM.keyLength)
        // The first (and here only) record's nonce is NONCE XOR 0, NONCE itself.
        nonce = try HKDF.sha256(inputKey: inputKey, salt: salt, info: Array("Content-Encoding: nonce".utf8) + [0],
                                length: AES128GCM.nonceLength)
    }
}

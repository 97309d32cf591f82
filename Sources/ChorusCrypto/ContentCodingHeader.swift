/// The header of an `aes128gcm` body (RFC 8188 §2.1): salt (16 bytes), record size (4 bytes,
/// big-endian), idlen (1 byte), keyid (idlen bytes). Web Push puts the application server's
/// ephemeral public key in keyid (RFC 8291 §4).
struct ContentCodingHeader: Equatable {
    static let saltLength = 16
    /// RFC 8188 §2.1: a record must hold at least the 16-byte tag, a delimiter and one more byte.
    static let smallestRecordSize: UInt32 = 18

    var salt: [UInt8]
    var recordSize: UInt32
    var keyID: [UInt8]

    init(salt: [UInt8], recordSize: UInt32, keyID: [UInt8]) {
        self.salt = salt
        self.recordSize = recordSize
        self.keyID = keyID
    }

    /// Reads the header at the start of `body`; `length` says where the records begin.
    init(parsing body: [UInt8]) throws {
        let fixed = Self.saltLength + 5
        guard body.count >= fixed else { throw CryptoError("aes128gcm body is shorter than its header (\(body.count) bytes)") }
        salt = Array(body[0..<Self.saltLength])
        recordSize = body[Self.saltLength..<Self.saltLength + 4].reduce(0) { $0 << 8 | UInt32($1) }
        guard recordSize >= Self.smallestRecordSize else { throw CryptoError("aes128gcm record size \(recordSize) is below 18") }
        let idLength = Int(body[fixed - 1])
        guard body.count >= fixed + idLength else { throw CryptoError("aes128gcm body ends inside its key id") }
        keyID = Array(body[fixed..<fixed + idLength])
    }

    var length: Int { Self.saltLength + 5 + keyID.count }

    var bytes: [UInt8] {
        let size = [UInt8(truncatingIfNeeded: recordSize >> 24), UInt8(truncatingIfNeeded: recordSize >> 16),
                    UInt8(truncatingIfNeeded: recordSize >> 8), UInt8(truncatingIfNeeded: recordSize)]
        return salt + size + [UInt8(keyID.count)] + keyID
    }
}

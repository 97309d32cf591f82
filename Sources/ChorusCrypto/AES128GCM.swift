import COpenSSL

/// AES-128-GCM (EVP_aes_128_gcm) with a 12-byte nonce, a 16-byte tag appended to the
/// ciphertext and no associated data, as RFC 8188 uses it.
enum AES128GCM {
    static let keyLength = 16
    static let nonceLength = 12
    static let tagLength = 16
    /// OpenSSL counts in Int32; Web Push records are at most 4096 bytes, so this is only a guard.
    static let longestInput = 1 << 30

    /// ciphertext || tag.
    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        guard plaintext.count <= longestInput else { throw CryptoError("AES-GCM input of \(plaintext.count) bytes is too long") }
        let context = try start(encrypting: true, key: key, nonce: nonce)
        defer { EVP_CIPHER_CTX_free(context) }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_EncryptUpdate(context, &output, &written, plaintext, Int32(plaintext.count)) == 1, Int(written) == plaintext.count else {
                throw CryptoError.openSSL("AES-GCM encryption failed")
            }
        }
        // GCM is a stream mode: Final writes nothing, it only computes the tag.
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard EVP_EncryptFinal_ex(context, &scratch, &finalLength) == 1, finalLength == 0,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), &tag) == 1
        else { throw CryptoError.openSSL("AES-GCM encryption failed") }
        output.replaceSubrange(plaintext.count..., with: tag)
        return output
    }

    /// The plaintext of ciphertext || tag; throws when the tag does not match, so a tampered
    /// or truncated record, or one made with another key, is never returned.
    static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        guard sealed.count >= tagLength else { throw CryptoError("AES-GCM record is shorter than its tag") }
        guard sealed.count <= longestInput else { throw CryptoError("AES-GCM input of \(sealed.count) bytes is too long") }
        let context = try start(encrypting: false, key: key, nonce: nonce)
        defer { EVP_CIPHER_CTX_free(context) }
        let ciphertextLength = sealed.count - tagLength
        var tag = Array(sealed[ciphertextLength...])
        var output = [UInt8](repeating: 0, count: ciphertextLength)
        var written: Int32 = 0
        if ciphertextLength > 0 {
            guard EVP_DecryptUpdate(context, &output, &written, sealed, Int32(ciphertextLength)) == 1, Int(written) == ciphertextLength else {
                throw CryptoError.openSSL("AES-GCM decryption failed")
            }
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &tag) == 1 else {
            throw CryptoError.openSSL("AES-GCM decryption failed")
        }
        var finalLength: Int32 = 0
        var scratch = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1 else {
            ERR_clear_error()
            throw CryptoError("AES-GCM authentication failed: the record was altered or the key is wrong")
        }
        return output
    }

    private static func start(encrypting: Bool, key: [UInt8], nonce: [UInt8]) throws -> OpaquePointer {
        guard key.count == keyLength else { throw CryptoError.wrongLength("AES-128-GCM key", expected: keyLength, got: key.count) }
        guard nonce.count == nonceLength else { throw CryptoError.wrongLength("AES-GCM nonce", expected: nonceLength, got: nonce.count) }
        ERR_clear_error()
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("cannot allocate cipher context") }
        let initialise = encrypting ? EVP_EncryptInit_ex : EVP_DecryptInit_ex
        guard initialise(context, EVP_aes_128_gcm(), nil, nil, nil) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonceLength), nil) == 1,
              initialise(context, nil, nil, key, nonce) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError.openSSL("cannot start AES-128-GCM")
        }
        return context
    }
}

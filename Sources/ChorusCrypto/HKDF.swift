import COpenSSL

/// HKDF with SHA-256 (RFC 5869), extract then expand, through OpenSSL's EVP_KDF "HKDF".
enum HKDF {
    /// `length` bytes of HKDF-Expand(HKDF-Extract(salt, inputKey), info, length).
    static func sha256(inputKey: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws -> [UInt8] {
        guard (1...255 * 32).contains(length) else { throw CryptoError("HKDF output length \(length) out of range") }
        ERR_clear_error()
        guard let algorithm = EVP_KDF_fetch(nil, "HKDF", nil) else { throw CryptoError.openSSL("HKDF is not available") }
        defer { EVP_KDF_free(algorithm) }
        guard let context = EVP_KDF_CTX_new(algorithm) else { throw CryptoError.openSSL("cannot allocate HKDF context") }
        defer { EVP_KDF_CTX_free(context) }
        let parameters = try OpenSSLParameters()
        try parameters.add("digest", text: "SHA256")
        try parameters.add("key", bytes: inputKey)
        try parameters.add("salt", bytes: salt)
        try parameters.add("info", bytes: info)
        var output = [UInt8](repeating: 0, count: length)
        let status = try parameters.withList { list in
            output.withUnsafeMutableBufferPointer { EVP_KDF_derive(context, $0.baseAddress, $0.count, list) }
        }
        guard status == 1 else { throw CryptoError.openSSL("HKDF failed") }
        return output
    }
}

import COpenSSL

/// The raw scrypt key derivation, via OpenSSL.
enum Scrypt {
    /// Derives `length` bytes from the password bytes and salt; throws if the parameters are out of range
    /// or OpenSSL refuses them (for example when N is too large for a small r).
    static func derive(password: [UInt8], salt: [UInt8], parameters: ScryptParameters, length: Int) throws -> [UInt8] {
        guard parameters.isAcceptable else {
            throw CryptoError("scrypt parameters out of range: ln=\(parameters.logN),r=\(parameters.r),p=\(parameters.p)")
        }
        var key = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBytes { pass in
            salt.withUnsafeBufferPointer { saltBytes in
                key.withUnsafeMutableBufferPointer { out in
                    EVP_PBE_scrypt(
                        pass.baseAddress?.assumingMemoryBound(to: CChar.self), pass.count,
                        saltBytes.baseAddress, saltBytes.count,
                        UInt64(1) << UInt64(parameters.logN), UInt64(parameters.r), UInt64(parameters.p),
                        parameters.maxMemory,
                        out.baseAddress, out.count)
                }
            }
        }
        guard status == 1 else { throw CryptoError.openSSL("scrypt failed") }
        return key
    }
}

import COpenSSL

/// SHA-256 for tokens and fingerprints; SHA-1 only where a protocol fixes it (the WebSocket handshake).
public enum Digest {
    /// The 32-byte SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        // The one-shot SHA256() works on a stack context and cannot fail, unlike the EVP path which allocates.
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// The 20-byte SHA-1 of `bytes`. RFC 6455 fixes SHA-1 for `Sec-WebSocket-Accept`; it proves
    /// nothing secret there, so its weakness does not matter. Use `sha256` for anything else.
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        // The one-shot SHA1(), like SHA256() above: a stack context, no allocation, no failure.
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA1(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// Lowercase hex SHA-256 of the string's UTF-8 bytes; used to store session tokens without storing the tokens.
    public static func sha256Hex(_ string: String) -> String {
        Hex.lowercase(sha256(Array(string.utf8)))
    }

    /// The SHA-256 of `bytes` as 64 lowercase hex digits.
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        Hex.lowercase(sha256(bytes))
    }
}

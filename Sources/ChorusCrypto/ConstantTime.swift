import COpenSSL

/// Compares secrets without an early exit, so response timing does not reveal how many leading bytes matched.
/// Lengths are not secret here (hashes and tokens have fixed sizes), so a length mismatch returns at once.
public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { left in
        b.withUnsafeBytes { right in
            CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
        }
    }
}

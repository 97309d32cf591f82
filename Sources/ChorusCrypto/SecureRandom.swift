import COpenSSL
import Foundation

/// Unpredictable bytes for salts, session tokens and certificate serials.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG, or from the kernel when OpenSSL cannot deliver.
    /// Stops the process if neither source works: a caller cannot tell weak randomness from good,
    /// so handing out predictable tokens would be worse than stopping.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        if fillFromOpenSSL(&buffer) || fillFromKernel(&buffer) {
            return buffer
        }
        preconditionFailure("ChorusCrypto: no working random source (RAND_bytes and /dev/urandom both failed)")
    }

    /// `count` random bytes spelled as 2 × `count` lowercase hex digits.
    public static func hex(_ count: Int) -> String {
        Hex.lowercase(bytes(count))
    }

    /// RAND_bytes takes an Int32 length, so large requests go in chunks.
    private static func fillFromOpenSSL(_ buffer: inout [UInt8]) -> Bool {
        buffer.withUnsafeMutableBufferPointer { out in
            var offset = 0
            while offset < out.count {
                let chunk = min(out.count - offset, 1 << 20)
                guard RAND_bytes(out.baseAddress! + offset, Int32(chunk)) == 1 else {
                    ERR_clear_error()
                    return false
                }
                offset += chunk
            }
            return true
        }
    }

    /// The kernel's pool, read until full; retries interrupted reads.
    private static func fillFromKernel(_ buffer: inout [UInt8]) -> Bool {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return buffer.withUnsafeMutableBytes { out in
            var offset = 0
            while offset < out.count {
                let got = read(fd, out.baseAddress! + offset, out.count - offset)
                if got > 0 {
                    offset += got
                } else if got < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}

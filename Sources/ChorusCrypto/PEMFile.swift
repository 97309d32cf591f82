import Foundation

/// Writes key and certificate files with an exact mode.
enum PEMFile {
    /// Creates or truncates `path` and sets `mode` before any byte is written, so a private key is never
    /// readable by others even briefly, and an existing file with looser permissions is tightened.
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t, what: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw CryptoError.system("cannot write \(what) \(path)", errno: errno) }
        var closed = false
        defer { if !closed { close(fd) } }
        guard fchmod(fd, mode) == 0 else { throw CryptoError.system("cannot set mode of \(what) \(path)", errno: errno) }
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    throw CryptoError.system("cannot write \(what) \(path)", errno: errno)
                }
            }
        }
        // A half-written key after a power cut would stop the server from starting, so flush it.
        guard fsync(fd) == 0 else { throw CryptoError.system("cannot flush \(what) \(path)", errno: errno) }
        closed = true
        guard close(fd) == 0 else { throw CryptoError.system("cannot close \(what) \(path)", errno: errno) }
    }
}

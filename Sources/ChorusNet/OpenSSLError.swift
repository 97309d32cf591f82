import ChorusAddresses
import CLinux
import COpenSSL
import Foundation

/// OpenSSL's thread-local error queue, read and cleared.
public enum OpenSSLError {
    public static func drain() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(nulTerminated: buffer))
        }
        return reasons.isEmpty ? "unknown error" : reasons.joined(separator: "; ")
    }
}

extension OpenSSLError {
    /// OpenSSL's reason, or errno's when OpenSSL has none (a reset socket).
    static func drainOrErrno() -> String {
        if ERR_peek_error() != 0 { return drain() }
        let code = clinux_errno()
        return code == 0 ? "connection closed" : String(cString: strerror(code))
    }
}

import COpenSSL
import Foundation

/// Every failure in ChorusCrypto, with a message meant for a log line or an operator.
public struct CryptoError: Error, Sendable, CustomStringConvertible {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension CryptoError {
    /// Builds an error from `context` plus the oldest reason on OpenSSL's thread-local error queue,
    /// then empties the queue so a stale reason cannot leak into the next, unrelated error.
    static func openSSL(_ context: String) -> CryptoError {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return CryptoError(context) }
        if let reason = ERR_reason_error_string(code) {
            return CryptoError("\(context): \(String(cString: reason))")
        }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return CryptoError("\(context): \(text)")
    }

    /// Builds an error from `context` plus the text for the current `errno`.
    static func system(_ context: String, errno code: Int32) -> CryptoError {
        CryptoError("\(context): \(String(cString: strerror(code)))")
    }
}

extension CryptoError {
    /// A key, salt, secret or signature of the wrong size: the caller handed us something else.
    static func wrongLength(_ what: String, expected: Int, got: Int) -> CryptoError {
        CryptoError("\(what) must be \(expected) bytes, not \(got)")
    }
}

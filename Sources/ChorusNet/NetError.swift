import CLinux
import Foundation

/// A failed system or OpenSSL call, with the reason the kernel or library gave.
public struct NetError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public let errno: Int32

    public init(_ message: String, errno: Int32 = 0) {
        self.message = message
        self.errno = errno
    }

    /// `what: strerror(errno)` for the calling thread's current errno.
    public static func system(_ what: String) -> NetError {
        let code = clinux_errno()
        return NetError("\(what): \(String(cString: strerror(code)))", errno: code)
    }

    public var description: String { message }
}


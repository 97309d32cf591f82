import COpenSSL
import ChorusClient
import ChorusCrypto
import ChorusLocking
import ChorusTestSupport
import Foundation
import Glibc

/// A fake chorus server that says whatever a test makes it say: TLS on loopback with a
/// throwaway self-signed certificate (clients connect with `--insecure`), each connection
/// handed to the test's script on a thread of its own. For the client's tests: escape
/// sequences, invalid UTF-8, lines that never end.
final class HostileServer: Sendable {
    /// One accepted connection, used only by the script's thread.
    final class Peer: @unchecked Sendable {
        // Safety: the SSL object and its buffer belong to the one thread that runs the script.
        private let ssl: OpaquePointer
        private var received: [UInt8] = []
        private let flooded: Locked<Int>

        fileprivate init(ssl: OpaquePointer, flooded: Locked<Int>) {
            self.ssl = ssl
            self.flooded = flooded
        }

        /// Sends one line with CRLF.
        func send(_ line: String) throws { try sendRaw(Array((line + "\r\n").utf8)) }

        /// Sends bytes as they are; blocks while the client does not read.
        func sendRaw(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(bytes.count - offset)) }
                guard written > 0 else { throw LineClient.Failure("the client went away") }
                offset += Int(written)
            }
        }

        /// The client's next line without its line end; nil when it closed the connection.
        func readLine() -> String? {
            while true {
                if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                    var line = Array(received[..<newline])
                    received.removeSubrange(...newline)
                    if line.last == UInt8(ascii: "\r") { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                guard count > 0 else { return nil }
                received += chunk[..<Int(count)]
            }
        }

        /// Sends `total` bytes of `x` with no line end (or, with `lines`, as lines of 64 bytes
        /// each starting with `lines`), in chunks, counting them in the server's `flooded`.
        func flood(bytes total: Int, lines prefix: String? = nil) throws {
            var chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65_536)
            if let prefix {
                let line = Array(prefix.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 62 - prefix.utf8.count) + [13, 10]
                chunk = Array((0..<1024).map { _ in line }.joined())
            }
            var sent = 0
            while sent < total {
                let part = min(chunk.count, total - sent)
                try sendRaw(part == chunk.count ? chunk : Array(chunk[..<part]))
                sent += part
                flooded.withLock { $0 += part }
            }
        }
    }

    let port: Int
    private let directory: TemporaryDirectory
    private let listener: Int32
    /// Bytes the scripts sent with `flood`, so a test can watch a flood go by.
    let flooded = Locked(0)

    /// Listens at once; every connection runs `script`, then is closed.
    init(script: @escaping @Sendable (Peer) throws -> Void) throws {
        // A client that goes away mid-flood must be a failed write, not the test process's death.
        signal(SIGPIPE, SIG_IGN)
        directory = try TemporaryDirectory()
        let certificatePath = directory.path + "/server.crt"
        let keyPath = directory.path + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath)
        guard let context = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1
        else { throw LineClient.Failure("cannot set up TLS for the hostile server") }
        port = try FreePort.next()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        guard withLoopbackAddress(port: port, { bind(listener, $0, $1) }) == 0, listen(listener, 8) == 0 else {
            Glibc.close(listener)
            SSL_CTX_free(context)
            throw LineClient.Failure("cannot listen on port \(port)")
        }
        self.listener = listener
        // The context outlives every connection: the accepting thread owns it until the
        // listener is shut down.
        // The threads hold what they need, not the server, so releasing it stops them.
        let shared = UncheckedPointer(context)
        let flooded = self.flooded
        let accepting = Thread {
            while true {
                let accepted = accept(listener, nil, nil)
                guard accepted >= 0 else { break }
                let connection = Thread {
                    defer { Glibc.close(accepted) }
                    guard let ssl = SSL_new(shared.value) else { return }
                    defer { SSL_free(ssl) }
                    SSL_set_fd(ssl, accepted)
                    guard SSL_accept(ssl) == 1 else { return }
                    try? script(Peer(ssl: ssl, flooded: flooded))
                    SSL_shutdown(ssl)
                }
                connection.start()
            }
            SSL_CTX_free(shared.value)
        }
        accepting.start()
    }

    deinit {
        // Wakes the accepting thread, which then frees the context.
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }
}

/// An OpenSSL context handed to the thread that frees it.
private struct UncheckedPointer: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}

/// The resident memory of a process in bytes (VmRSS of /proc/PID/status), nil once it is gone.
func residentBytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
    return kilobytes.map { $0 * 1024 }
}

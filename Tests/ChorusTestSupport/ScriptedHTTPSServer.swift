import COpenSSL
import ChorusCrypto
import ChorusLocking
import ChorusTestSupport
import Foundation
import Glibc

/// A test-only HTTPS/1.1 server on 127.0.0.1 that answers each request as the test's
/// script says: a status with headers and body, silence, a body trickled a byte at a time,
/// or a connection closed mid-response. Its certificate is a fresh self-signed one
/// (SAN localhost and 127.0.0.1), so a client trusts it only through its CA file.
public final class ScriptedHTTPSServer: Sendable {
    public struct Received: Sendable {
        public let method: String
        public let target: String
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        public let at: Date

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public enum Answer: Sendable {
        case respond(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [])
        /// Reads the request, then says nothing until the client gives up.
        case silence
        /// Promises `bytes` of body and sends one byte every `interval` seconds.
        case trickle(bytes: Int, interval: Double)
        /// Promises 100 bytes of body, sends 10, closes.
        case closeMidResponse
    }

    public let port: Int
    public let certificatePath: String
    private let directory: TemporaryDirectory
    private let listener: Int32
    private let log = Locked<[Received]>([])

    /// Everything received so far, in order.
    public var received: [Received] { log.withLock { $0 } }

    /// `script` gets each request and how many came before it (on every connection).
    public init(script: @escaping @Sendable (Received, Int) -> Answer) throws {
        // A client that goes away mid-answer must be a failed write, not the test's death.
        signal(SIGPIPE, SIG_IGN)
        directory = try TemporaryDirectory()
        certificatePath = directory.path + "/server.crt"
        let keyPath = directory.path + "/server.key"
        _ = try SelfSignedCertificate.create(certificatePath: certificatePath, keyPath: keyPath)
        guard let context = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1
        else { throw ServerFailure("cannot set up TLS for the scripted server") }
        port = try FreePort.next()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            Glibc.close(listener)
            SSL_CTX_free(context)
            throw ServerFailure("cannot listen on port \(port)")
        }
        self.listener = listener
        // The threads hold what they need, not the server, so releasing it stops them.
        let shared = ContextPointer(context)
        let log = self.log
        let accepting = Thread {
            while true {
                let accepted = accept(listener, nil, nil)
                guard accepted >= 0 else { break }
                Thread {
                    defer { Glibc.close(accepted) }
                    guard let ssl = SSL_new(shared.value) else { return }
                    defer { SSL_free(ssl) }
                    SSL_set_fd(ssl, accepted)
                    guard SSL_accept(ssl) == 1 else { return }
                    Exchange(ssl: ssl).serve(log: log, script: script)
                }.start()
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

    public func url(_ path: String = "/", host: String = "127.0.0.1") -> String {
        "https://\(host):\(port)\(path)"
    }

    public struct ServerFailure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// One connection's requests and answers, on the thread that accepted it.
private final class Exchange {
    private let ssl: OpaquePointer
    private var buffer: [UInt8] = []

    init(ssl: OpaquePointer) {
        self.ssl = ssl
    }

    func serve(log: Locked<[ScriptedHTTPSServer.Received]>, script: @Sendable (ScriptedHTTPSServer.Received, Int) -> ScriptedHTTPSServer.Answer) {
        while let request = readRequest() {
            let index = log.withLock { list -> Int in
                list.append(request)
                return list.count - 1
            }
            switch script(request, index) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                guard write(Array((head + "\r\n").utf8) + body) else { return }
            case .silence:
                // Blocks until the client closes the connection.
                while readMore() {}
                return
            case .trickle(let bytes, let interval):
                guard write(Array("HTTP/1.1 200 Slow\r\nContent-Length: \(bytes)\r\n\r\n".utf8)) else { return }
                for _ in 0..<bytes {
                    usleep(UInt32(interval * 1_000_000))
                    guard write([UInt8(ascii: "x")]) else { return }
                }
            case .closeMidResponse:
                _ = write(Array("HTTP/1.1 200 Cut\r\nContent-Length: 100\r\n\r\n0123456789".utf8))
                return
            }
        }
    }

    private func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(bytes.count - offset)) }
            guard written > 0 else { return false }
            offset += Int(written)
        }
        return true
    }

    /// False when the client closed the connection or it broke.
    private func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
        guard count > 0 else { return false }
        buffer += chunk[..<Int(count)]
        return true
    }

    /// One request head and its Content-Length body; nil when the connection ends first.
    private func readRequest() -> ScriptedHTTPSServer.Received? {
        let end: Int
        while true {
            if let found = headEnd() {
                end = found
                break
            }
            guard readMore() else { return nil }
        }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeSubrange(..<(end + 4))
        let requestLine = lines[0].split(separator: " ").map(String.init)
        guard requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count < length {
            guard readMore() else { return nil }
        }
        let body = Array(buffer[..<length])
        buffer.removeSubrange(..<length)
        return ScriptedHTTPSServer.Received(method: requestLine[0], target: requestLine[1], headers: headers, body: body, at: Date())
    }

    private func headEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// An OpenSSL context handed to the thread that frees it.
private struct ContextPointer: @unchecked Sendable {
    // Safety: the context is only read by connection threads until the accepting thread frees it.
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}

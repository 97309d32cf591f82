import CLinux
import ChorusCrypto
import COpenSSL
import Foundation

/// A blocking TLS line client: connect, send lines, read CRLF-ended lines with a timeout.
/// Used by tests and tools; one thread per client, which is fine for a handful of them.
public final class LineClient {
    public enum Trust {
        /// Verify the server against this PEM file (a CA, or the self-signed certificate itself), and its name.
        case certificateFile(String)
        /// Do not check the certificate (tests of the TLS layer, `--insecure`).
        case insecure
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// Set when the handshake failed because the certificate is not for the name
        /// dialled: the OpenSSL error's name and the names the certificate holds.
        public var nameMismatch: (error: String, names: [String])?
        /// Set when the peer hung up or the socket failed during the handshake (a balancer
        /// with no node behind it, a node going down): nothing about TLS or certificates,
        /// so worth another try, and not worth OpenSSL's words.
        public var closedInHandshake = false
        public init(_ description: String) { self.description = description }
    }

    /// The most of one incoming line a client holds: 4 MiB. The longest lines a real
    /// server sends are single JSON replies that are not paged (`TASKS` and `CALENDAR` of a
    /// big household, about 400 bytes a task) and SYNC and history pages (about 256 KiB);
    /// 4 MiB is sixteen such pages, some 10,000 tasks. Past it a line is cut (see `absorb`).
    public static let defaultMaxLineBytes = 4 << 20

    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private let maxLineBytes: Int
    /// Complete lines received and not yet taken, oldest first from `nextReady`.
    private var ready: [String] = []
    private var nextReady = 0
    /// The start of the line being received, at most `maxLineBytes`.
    private var partial: [UInt8] = []
    /// Bytes of the line being received that were thrown away past the bound; nil while
    /// it fits.
    private var cutBytes: Int?
    /// The last byte thrown away, so a cut line's CR is not counted as one of its bytes.
    private var lastCutByte: UInt8 = 0
    private var closed = false

    public init(host: String = "127.0.0.1", port: Int, trust: Trust, serverName: String = "localhost",
                minVersion: Int32 = COPENSSL_TLS1_2_VERSION, maxVersion: Int32 = COPENSSL_TLS1_3_VERSION,
                ciphers: String? = nil, timeout: Double = 10, maxLineBytes: Int = LineClient.defaultMaxLineBytes,
                applicationProtocols: [String] = ["chorus"]) throws {
        self.maxLineBytes = max(1, maxLineBytes)
        fd = try Self.connect(host: host, port: port, timeout: timeout)
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            Glibc.close(fd)
            throw Failure("cannot create TLS context")
        }
        self.context = context
        _ = copenssl_ctx_set_min_proto(context, minVersion)
        _ = copenssl_ctx_set_max_proto(context, maxVersion)
        if let ciphers { SSL_CTX_set_cipher_list(context, ciphers) }
        // ALPN `chorus`: the server greets at once instead of first looking for HTTP. Tests
        // of the web door offer `http/1.1`, or nothing.
        if !applicationProtocols.isEmpty {
            let list = applicationProtocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
            _ = SSL_CTX_set_alpn_protos(context, list, UInt32(list.count))
        }
        switch trust {
        case .certificateFile(let path):
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                SSL_CTX_free(context)
                Glibc.close(fd)
                throw Failure("cannot load \(path)")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        case .insecure:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            Glibc.close(fd)
            throw Failure("cannot create TLS session")
        }
        self.ssl = ssl
        _ = copenssl_set_host_name(ssl, serverName)
        if case .certificateFile = trust { SSL_set1_host(ssl, serverName) }
        SSL_set_fd(ssl, fd)
        var timeoutValue = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeoutValue, socklen_t(MemoryLayout<timeval>.size))
        let handshake = SSL_connect(ssl)
        guard handshake == 1 else {
            // Every property is set, so deinit runs and frees the TLS objects.
            let code = SSL_get_error(ssl, handshake)
            let reason = Self.opensslReason()
            var failure = Failure("TLS handshake failed: \(reason)")
            // OpenSSL 3 reports a peer that hung up as SSL_ERROR_SSL "unexpected eof".
            if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_ZERO_RETURN || reason.contains("unexpected eof")
                || reason == "connection closed" {
                failure = Failure("the connection closed during the TLS handshake")
                failure.closedInHandshake = true
            }
            if let mismatch = Self.nameMismatch(ssl) {
                failure = Failure("TLS handshake failed: the certificate is not for \(serverName) (\(mismatch.error)); "
                                  + "it names \(mismatch.names.isEmpty ? "nothing" : mismatch.names.joined(separator: ", "))")
                failure.nameMismatch = mismatch
            }
            Glibc.close(fd)
            closed = true
            throw failure
        }
    }

    deinit {
        close()
        SSL_free(ssl)
        SSL_CTX_free(context)
    }

    /// "TLSv1.3" and friends.
    public var protocolVersion: String { String(cString: SSL_get_version(ssl)) }
    public var cipher: String { String(cString: SSL_CIPHER_get_name(SSL_get_current_cipher(ssl))) }

    /// The socket, so a caller can `poll(2)` it next to other descriptors (the `chorus` client
    /// waits on the terminal and the server at once). Check `hasBufferedLine` before polling:
    /// a line may already sit in the buffer.
    public var fileDescriptor: Int32 { fd }

    /// SHA-256 fingerprint ("AB:CD:…") of the certificate the server presented, for pinning
    /// and trust on first use; nil when there is none (cannot happen after a handshake).
    public var peerCertificateFingerprint: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        return CertificateFingerprint.sha256(certificate: certificate)
    }

    /// A whole line is waiting in the buffer: `nextBufferedLine()` returns it without I/O.
    public var hasBufferedLine: Bool { nextReady < ready.count }

    /// The connection has ended (the server closed it, or `close()` was called).
    public var isClosed: Bool { closed }

    /// The next complete line already received, without reading the socket.
    public func nextBufferedLine() -> String? {
        guard nextReady < ready.count else { return nil }
        let line = ready[nextReady]
        nextReady += 1
        if nextReady == ready.count {
            ready.removeAll(keepingCapacity: true)
            nextReady = 0
        }
        return line
    }

    /// Takes received bytes: each line end completes a line, the rest is the start of the
    /// next. Every byte is looked at once, so a line that never ends costs time in
    /// proportion to its length, not its square. Past `maxLineBytes` the line is cut: what
    /// fits is kept (ending on a whole UTF-8 character), the rest up to its line end is
    /// only counted, and the line is handed on with a visible mark saying how much was
    /// left out, so memory stays flat whatever a server sends.
    private func absorb(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !rest.isEmpty {
            let newline = rest.firstIndex(of: UInt8(ascii: "\n"))
            let piece = rest[..<(newline ?? rest.endIndex)]
            keep(piece)
            guard let newline else { return }
            finishLine()
            rest = rest[(newline + 1)...]
        }
    }

    /// Adds part of the line being received, up to the bound.
    private func keep(_ piece: ArraySlice<UInt8>) {
        guard !piece.isEmpty else { return }
        if var cut = cutBytes {
            cut += piece.count
            cutBytes = cut
            lastCutByte = piece.last!
            return
        }
        let room = maxLineBytes - partial.count
        guard piece.count > room else {
            partial.append(contentsOf: piece)
            return
        }
        partial.append(contentsOf: piece.prefix(room))
        cutBytes = piece.count - room + Self.dropSplitCharacter(&partial)
        lastCutByte = piece.last!
    }

    /// Removes a character the cut split (a lead byte at the end whose continuation bytes
    /// did not all fit), so a cut line ends on a whole character; how many bytes went.
    private static func dropSplitCharacter(_ bytes: inout [UInt8]) -> Int {
        var seen = 0
        for byte in bytes.reversed().prefix(4) {
            seen += 1
            if byte & 0xC0 == 0x80 { continue } // a continuation byte: its lead is further back
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard length > seen else { return 0 }
            bytes.removeLast(seen)
            return seen
        }
        return 0
    }

    /// A line end arrived: the line is ready, without its CR.
    private func finishLine() {
        var line: String
        if var cut = cutBytes {
            // Only the CR of the line end did not fit: nothing was cut.
            if lastCutByte == UInt8(ascii: "\r") { cut -= 1 }
            line = String(decoding: partial, as: UTF8.self)
            if cut > 0 { line += Self.cutMark(cut) }
        } else {
            if partial.last == UInt8(ascii: "\r") { partial.removeLast() }
            line = String(decoding: partial, as: UTF8.self)
        }
        ready.append(line)
        // A cut line's storage is given back; an ordinary one's is kept for the next.
        if cutBytes != nil { partial = [] } else { partial.removeAll(keepingCapacity: true) }
        cutBytes = nil
    }

    /// What ends a cut line: `… [line cut: N more bytes]`.
    public static func cutMark(_ count: Int) -> String {
        "… [line cut: \(count) more bytes]"
    }

    /// Reads what has arrived, for a caller whose `poll` said the socket is readable: one
    /// TLS record and whatever OpenSSL already decrypted. Returns false once the connection
    /// is closed; complete lines are then taken with `nextBufferedLine()`.
    public func receiveAvailable() -> Bool {
        guard !closed else { return false }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        repeat {
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                absorb(chunk[..<Int(count)])
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return true }
            closed = true
            return false
        } while SSL_pending(ssl) > 0
        return true
    }

    /// Sends one line, adding CRLF.
    public func send(_ line: String) throws {
        try sendRaw(Array((line + "\r\n").utf8))
    }

    /// Sends bytes as they are (tests of framing: no terminator, binary junk).
    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32(bytes.count - offset)) }
            guard written > 0 else { throw Failure("write failed: \(Self.opensslReason())") }
            offset += Int(written)
        }
    }

    /// The next line without its CRLF; nil when the server closed the connection.
    /// Throws when nothing arrives within `timeout` seconds.
    public func readLine(timeout: Double = 10) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = nextBufferedLine() { return line }
            if closed { return nil }
            if SSL_pending(ssl) == 0 {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { throw Failure("no line within \(timeout) s") }
                var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = Glibc.poll(&poll, 1, Int32(remaining * 1000) + 1)
                if ready == 0 { throw Failure("no line within \(timeout) s") }
            }
            var chunk = [UInt8](repeating: 0, count: 16_384)
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                absorb(chunk[..<Int(count)])
            } else {
                let error = SSL_get_error(ssl, count)
                if error == SSL_ERROR_WANT_READ { continue }
                closed = true
            }
        }
    }

    /// The protocol ALPN chose (`chorus`, `http/1.1`), nil for none.
    public var applicationProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Bytes as they arrive, for tests of the web door's framings (HTTP, WebSocket), which
    /// read no lines: nil once the server closed; throws when nothing comes in `timeout`.
    public func readBytes(timeout: Double = 10) throws -> [UInt8]? {
        if closed { return nil }
        if SSL_pending(ssl) == 0 {
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if Glibc.poll(&poll, 1, Int32(timeout * 1000) + 1) == 0 { throw Failure("nothing within \(timeout) s") }
        }
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 { return Array(chunk[..<Int(count)]) }
            if SSL_get_error(ssl, count) == SSL_ERROR_WANT_READ { continue }
            closed = true
            return nil
        }
    }

    public func close() {
        guard !closed else { return }
        closed = true
        SSL_shutdown(ssl)
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
        Glibc.close(fd)
    }

    private static func connect(host: String, port: Int, timeout: Double) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw Failure("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket failed") }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        // Non-blocking while connecting, so an address that never answers fails after
        // `timeout` seconds rather than the kernel's minutes.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        var error: Int32 = 0
        if Glibc.connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            error = clinux_errno()
            if error == EINPROGRESS {
                var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                if Glibc.poll(&poll, 1, Int32(timeout * 1000)) == 1 {
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                } else {
                    error = ETIMEDOUT
                }
            }
        }
        guard error == 0 else {
            let reason = String(cString: strerror(error))
            Glibc.close(fd)
            throw Failure("cannot connect to \(host):\(port): \(reason)")
        }
        _ = fcntl(fd, F_SETFL, flags)
        return fd
    }

    /// After a failed handshake: whether verification stopped at the name check, and the
    /// names of the certificate offered. OpenSSL keeps the chain it refused (not the peer
    /// certificate, which it stores only once verified); the leaf is first.
    private static func nameMismatch(_ ssl: OpaquePointer) -> (error: String, names: [String])? {
        let result = SSL_get_verify_result(ssl)
        let error: String
        switch result {
        case Int(X509_V_ERR_HOSTNAME_MISMATCH): error = "X509_V_ERR_HOSTNAME_MISMATCH"
        case Int(X509_V_ERR_IP_ADDRESS_MISMATCH): error = "X509_V_ERR_IP_ADDRESS_MISMATCH"
        default: return nil
        }
        guard let chain = SSL_get_peer_cert_chain(ssl) else { return (error, []) }
        guard OPENSSL_sk_num(chain) > 0, let leaf = OPENSSL_sk_value(chain, 0) else { return (error, []) }
        return (error, CertificateNames.subjectAltNames(certificate: OpaquePointer(leaf)))
    }

    private static func opensslReason() -> String {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.isEmpty ? "connection closed" : reasons.joined(separator: "; ")
    }
}

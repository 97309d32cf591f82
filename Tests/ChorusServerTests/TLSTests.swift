import ChorusClient
import ChorusCrypto
import COpenSSL
import Foundation
import Testing

/// The TLS profile as a client sees it.
@Suite struct TLSTests {
    /// TLS 1.3 is negotiated by default and the certificate verifies by host name.
    @Test func negotiatesTLS13AndVerifies() throws {
        let server = try TestServer()
        let client = try LineClient(port: server.port, trust: .certificateFile(server.certificatePath))
        #expect(client.protocolVersion == "TLSv1.3")
    }

    /// TLS 1.2 works with ECDHE and AES-GCM.
    @Test func acceptsTLS12WithECDHE() throws {
        let server = try TestServer()
        let client = try LineClient(port: server.port, trust: .certificateFile(server.certificatePath),
                                    maxVersion: COPENSSL_TLS1_2_VERSION, ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256")
        #expect(client.protocolVersion == "TLSv1.2")
        #expect(client.cipher == "ECDHE-ECDSA-AES128-GCM-SHA256")
    }

    /// TLS 1.1 and TLS 1.2 suites without forward secrecy or AEAD are refused.
    @Test func refusesOldProtocolsAndWeakSuites() throws {
        let server = try TestServer()
        #expect(throws: LineClient.Failure.self) {
            _ = try LineClient(port: server.port, trust: .insecure, minVersion: TLS1_1_VERSION, maxVersion: TLS1_1_VERSION,
                               ciphers: "DEFAULT:@SECLEVEL=0")
        }
        #expect(throws: LineClient.Failure.self) {
            _ = try LineClient(port: server.port, trust: .insecure, maxVersion: COPENSSL_TLS1_2_VERSION,
                               ciphers: "ECDHE-ECDSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA")
        }
        // The server survives all that.
        let client = try server.client()
        #expect(try client.last("PING") == "OK PONG")
    }

    /// A client that trusts a different certificate refuses to talk.
    @Test func wrongCertificateIsRejectedByTheClient() throws {
        let server = try TestServer()
        let other = try TemporaryDirectory()
        _ = try SelfSignedCertificate.create(certificatePath: other.path + "/server.crt", keyPath: other.path + "/server.key")
        #expect(throws: LineClient.Failure.self) {
            _ = try LineClient(port: server.port, trust: .certificateFile(other.path + "/server.crt"))
        }
    }

    /// Garbage instead of a TLS handshake closes that socket and nothing else.
    @Test func plaintextGarbageIsDropped() throws {
        let server = try TestServer()
        let fd = rawConnection(port: server.port)
        let junk = Array("HELLO I AM NOT TLS\r\n".utf8)
        _ = junk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var buffer = [UInt8](repeating: 0, count: 256)
        // The server answers with a TLS alert or just closes; either way the socket ends.
        var total = 0
        let deadline = Date().addingTimeInterval(30)
        while true {
            var watch = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(max(0, deadline.timeIntervalSinceNow) * 1000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else {
                Issue.record("the plaintext socket did not end within 30 s")
                break
            }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            total += count
        }
        close(fd)
        let client = try server.client()
        #expect(try client.last("PING") == "OK PONG")
    }
}


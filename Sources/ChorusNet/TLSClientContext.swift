import COpenSSL
import Foundation

/// A client-side OpenSSL configuration for many non-blocking connections to one server:
/// TLS 1.2 or 1.3, the certificate checked against a CA file and the host, or not at all.
///
/// No session cache: every connection makes a full handshake, which is what a server's
/// handshake cost should be measured with.
public final class TLSClientContext: @unchecked Sendable {
    // Safety: the SSL_CTX is configured in init and only used for SSL_new afterwards,
    // which OpenSSL allows from several threads.
    public enum Trust: Sendable {
        /// Verify the chain against this PEM file and the name against the host.
        case certificateFile(String)
        /// Accept any certificate (testing only).
        case anyCertificate
    }

    let context: OpaquePointer
    private let verifies: Bool

    /// `applicationProtocols` are offered by ALPN in order of preference: `chorus` (the
    /// default) is greeted at once as a line session, `http/1.1` speaks HTTP (CONTRACT §9).
    public init(trust: Trust, applicationProtocols: [String] = ["chorus"]) throws {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw NetError("cannot create TLS context: \(OpenSSLError.drain())")
        }
        self.context = context
        guard copenssl_ctx_set_min_proto(context, COPENSSL_TLS1_2_VERSION) == 1 else {
            SSL_CTX_free(context)
            throw NetError("cannot configure TLS: \(OpenSSLError.drain())")
        }
        switch trust {
        case .certificateFile(let path):
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                SSL_CTX_free(context)
                throw NetError("cannot read CA file \(path): \(OpenSSLError.drain())")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            verifies = true
        case .anyCertificate:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            verifies = false
        }
        // ALPN's wire form: each name after its length byte.
        var offer: [UInt8] = []
        for name in applicationProtocols where (1...255).contains(name.utf8.count) {
            offer.append(UInt8(name.utf8.count))
            offer.append(contentsOf: name.utf8)
        }
        if !offer.isEmpty {
            guard SSL_CTX_set_alpn_protos(context, offer, UInt32(offer.count)) == 0 else {
                SSL_CTX_free(context)
                throw NetError("cannot offer ALPN \(applicationProtocols): \(OpenSSLError.drain())")
            }
        }
        // The output buffer may grow and move while a partial write waits.
        _ = copenssl_ctx_set_mode(context, COPENSSL_MODE_PARTIAL_WRITE | COPENSSL_MODE_MOVING_BUFFER)
        // Read ahead: one read() takes every record the kernel holds, instead of one read
        // for each record's header and another for its body.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A fresh SSL in client mode for a connecting socket, checking `address`'s host.
    func makeSession(fd: Int32, address: ResolvedAddress) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        if address.hostIsNumeric {
            if verifies { X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), address.host) }
        } else {
            _ = copenssl_set_host_name(ssl, address.host)
            if verifies { SSL_set1_host(ssl, address.host) }
        }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        return ssl
    }
}

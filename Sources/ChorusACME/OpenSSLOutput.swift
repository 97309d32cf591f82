import COpenSSL

/// OpenSSL's encoders write to a BIO; this gives their bytes back, and their failures as
/// `ACMEError`s with OpenSSL's reason.
enum OpenSSLOutput {
    /// What `write` put in a memory BIO; throws when it returned anything but 1 or wrote nothing.
    static func bytes(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("cannot allocate a buffer for \(what)") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw failure("cannot encode \(what)") }
        var data: UnsafeMutablePointer<CChar>?
        let length = copenssl_bio_mem_data(bio, &data)
        guard length > 0, let data else { throw failure("cannot encode \(what)") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// `context` and the oldest reason on OpenSSL's error queue, which is then emptied.
    static func failure(_ context: String) -> ACMEError {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0, let reason = ERR_reason_error_string(code) else { return ACMEError(context) }
        return ACMEError("\(context): \(String(cString: reason))")
    }

    /// A GENERAL_NAMES stack of DNS names (freed by the caller with GENERAL_NAMES_free),
    /// built from values rather than config text, so no name can add entries of its own.
    static func dnsNames(_ names: [String]) throws -> OpaquePointer {
        guard let stack = OPENSSL_sk_new_null() else { throw failure("cannot allocate subjectAltName") }
        for name in names {
            guard let entry = GENERAL_NAME_new() else {
                GENERAL_NAMES_free(stack)
                throw failure("cannot allocate a DNS name")
            }
            guard let text = ASN1_IA5STRING_new() else {
                GENERAL_NAME_free(entry)
                GENERAL_NAMES_free(stack)
                throw failure("cannot allocate a DNS name")
            }
            GENERAL_NAME_set0_value(entry, GEN_DNS, UnsafeMutableRawPointer(text))
            guard ASN1_STRING_set(text, name, Int32(name.utf8.count)) == 1, OPENSSL_sk_push(stack, entry) > 0 else {
                GENERAL_NAME_free(entry)
                GENERAL_NAMES_free(stack)
                throw failure("cannot add DNS name \(name)")
            }
        }
        return stack
    }
}

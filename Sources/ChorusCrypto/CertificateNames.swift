import COpenSSL
import Foundation

/// The names a certificate is good for: its subjectAltName entries, as `DNS:name` and
/// `IP:address`, in the order the certificate lists them. Clients check the host they
/// dialled against these (RFC 6125); the common name does not count.
public enum CertificateNames {
    /// The names of the first certificate in a PEM file.
    public static func subjectAltNames(pemFile path: String) throws -> [String] {
        try withCertificate(pemFile: path) { subjectAltNames(certificate: $0) }
    }

    /// Whether the first certificate in a PEM file issued itself (a self-signed one, like
    /// those chorusd makes) rather than coming from a CA.
    public static func isSelfIssued(pemFile path: String) throws -> Bool {
        try withCertificate(pemFile: path) { X509_check_issued($0, $0) == X509_V_OK }
    }

    /// Runs `body` on the first certificate of a PEM file, freed after.
    private static func withCertificate<T>(pemFile path: String, _ body: (OpaquePointer) -> T) throws -> T {
        ERR_clear_error()
        guard let bio = BIO_new_file(path, "r") else { throw CryptoError.openSSL("cannot read certificate \(path)") }
        defer { BIO_free(bio) }
        guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else {
            throw CryptoError.openSSL("cannot parse certificate \(path)")
        }
        defer { X509_free(certificate) }
        return body(certificate)
    }

    /// The names of an in-memory X509 (a TLS peer's); empty when it has no subjectAltName.
    public static func subjectAltNames(certificate: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(certificate, NID_subject_alt_name, nil, nil) else {
            ERR_clear_error()
            return []
        }
        let stack = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(stack) }
        var names: [String] = []
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let entry = OPENSSL_sk_value(stack, index) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(entry.assumingMemoryBound(to: GENERAL_NAME.self), &type) else { continue }
            let string = value.assumingMemoryBound(to: ASN1_STRING.self)
            let length = Int(ASN1_STRING_length(string))
            guard let data = ASN1_STRING_get0_data(string), length > 0 else { continue }
            let bytes = Array(UnsafeBufferPointer(start: data, count: length))
            switch type {
            case GEN_DNS: names.append("DNS:" + String(decoding: bytes, as: UTF8.self))
            case GEN_IPADD: if let address = format(address: bytes) { names.append("IP:" + address) }
            default: continue
            }
        }
        return names
    }

    /// Whether `host` (a DNS name or an IP address) is among `names`, as a client checks it:
    /// names compare without case, addresses by value, `*.` matches one leftmost label.
    public static func covers(_ names: [String], host: String) -> Bool {
        if let wanted = parse(address: host) {
            return names.contains { $0.hasPrefix("IP:") && parse(address: String($0.dropFirst(3))) == wanted }
        }
        let host = host.lowercased()
        return names.contains { name in
            guard name.hasPrefix("DNS:") else { return false }
            let pattern = name.dropFirst(4).lowercased()
            if pattern.hasPrefix("*."), let dot = host.firstIndex(of: ".") {
                return host[dot...] == pattern.dropFirst(1)
            }
            return pattern == host
        }
    }

    /// Whether `text` is an IPv4 or IPv6 literal.
    public static func isAddress(_ text: String) -> Bool { parse(address: text) != nil }

    /// 4 or 16 bytes in the usual text form.
    public static func format(address bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, bytes, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An address's bytes, or nil for anything that is not an IPv4 or IPv6 literal.
    static func parse(address text: String) -> [UInt8]? {
        var four = in_addr()
        if inet_pton(AF_INET, text, &four) == 1 { return withUnsafeBytes(of: &four) { Array($0) } }
        var six = in6_addr()
        if inet_pton(AF_INET6, text, &six) == 1 { return withUnsafeBytes(of: &six) { Array($0) } }
        return nil
    }
}

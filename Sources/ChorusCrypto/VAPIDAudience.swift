import Foundation

/// The `aud` of a VAPID JWT: the origin of the push endpoint (RFC 8292 §2), scheme://host,
/// with :port only when it is not the scheme's default, as RFC 6454 spells an origin.
public enum VAPIDAudience {
    public static func of(endpoint: String) throws -> String {
        guard let parts = URLComponents(string: endpoint), let scheme = parts.scheme?.lowercased(),
              scheme == "https" || scheme == "http", var host = parts.host?.lowercased(), !host.isEmpty
        else { throw CryptoError("push endpoint is not an http(s) URL with a host") }
        // An IPv6 literal keeps its brackets in an origin.
        if host.contains(":") && !host.hasPrefix("[") { host = "[" + host + "]" }
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = parts.port, port != defaultPort {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }
}

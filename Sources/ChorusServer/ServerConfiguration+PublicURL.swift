import Foundation

/// Where clients reach this server from outside, for the calendar links (CONTRACT §9).
extension ServerConfiguration {
    /// `--public-url`'s value as an origin, `https://HOST[:PORT]` without a trailing "/";
    /// nil unless it is https with a host, no user, no path beyond "/", no query or fragment.
    public static func publicOrigin(parsing text: String) -> String? {
        guard let parts = URLComponents(string: text), parts.scheme?.lowercased() == "https",
              let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil,
              parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil
        else { return nil }
        if let port = parts.port, !(1...65535).contains(port) { return nil }
        let rest = text.dropFirst("https://".count)
        let authority = rest.hasSuffix("/") ? rest.dropLast() : rest
        return "https://" + authority
    }

    /// The origin of calendar links: `--public-url` when given, else `https://` and the
    /// listening host (the machine's name for a wildcard, an IPv6 address in brackets) and
    /// the port actually bound.
    func calendarOrigin(port: Int) -> String {
        if let publicURL { return publicURL }
        var host = ListeningNames.isWildcard(self.host) ? (ListeningNames.machineName() ?? "localhost") : self.host
        if host.contains(":") && !host.hasPrefix("[") { host = "[" + host + "]" }
        return "https://\(host):\(port)"
    }
}

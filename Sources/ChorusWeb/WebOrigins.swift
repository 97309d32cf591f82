/// The origins a WebSocket upgrade may come from (CONTRACT §9): the server's own,
/// `https://NAME[:PORT]` for each name its certificate holds, and those given with
/// `--web-origin`. A browser names the page's origin in `Origin`; any other site's page is
/// refused, so no other site can open a session in a user's browser.
public struct WebOrigins: Sendable, Equatable {
    public private(set) var allowed: Set<String> = []

    /// `certificateNames` as `CertificateNames` lists them (`DNS:name`, `IP:address`);
    /// `port` the one the server listens on (browsers leave 443 out of an origin).
    public init(certificateNames: [String], port: Int, extra: [String]) {
        for entry in certificateNames {
            var host: String
            if entry.hasPrefix("DNS:") {
                host = String(entry.dropFirst(4)).lowercased()
                // A wildcard name stands for hosts this list cannot enumerate; name them
                // with --web-origin.
                if host.hasPrefix("*.") { continue }
            } else if entry.hasPrefix("IP:") {
                host = String(entry.dropFirst(3))
                if host.contains(":") { host = "[\(host)]" }
            } else {
                continue
            }
            allowed.insert(Self.normalised("https://\(host):\(port)"))
        }
        for origin in extra { allowed.insert(Self.normalised(origin)) }
    }

    /// Whether an upgrade with this `Origin` header may go on: no header (not a browser) or one of ours.
    public func admits(_ origin: String?) -> Bool {
        guard let origin else { return true }
        return allowed.contains(Self.normalised(origin))
    }

    /// Scheme and host compare without case; a trailing slash is not part of an origin.
    static func normalised(_ origin: String) -> String {
        var text = origin.trimmingWhitespace.lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        if text.hasPrefix("https://") && text.hasSuffix(":443") { text.removeLast(4) }
        return text
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}

/// The request-target forms the web door accepts (RFC 9112 §3.2): origin-form ("/p?q"),
/// absolute-form ("http(s)://host/p?q", reduced to its path and query) and, for OPTIONS
/// only, asterisk-form ("*"). Authority-form belongs to CONNECT, which is not served.
enum HTTPRequestTarget {
    /// The path and query of `target`, nil when it is none of the accepted forms. The
    /// caller has already checked that it is visible ASCII.
    static func split(_ target: String, method: String) -> (path: String, query: String?)? {
        if target == "*" { return method == "OPTIONS" ? (path: "*", query: nil) : nil }
        // A fragment never travels in a request (RFC 9110 §7.1); one that does is malformed.
        guard !target.contains("#") else { return nil }
        if target.hasPrefix("/") { return splitQuery(Substring(target)) }
        let lowered = target.lowercased()
        let schemeLength: Int
        if lowered.hasPrefix("http://") {
            schemeLength = 7
        } else if lowered.hasPrefix("https://") {
            schemeLength = 8
        } else {
            return nil
        }
        let afterScheme = target.dropFirst(schemeLength)
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        guard authorityEnd > afterScheme.startIndex else { return nil }
        let rest = afterScheme[authorityEnd...]
        if rest.first == "/" { return splitQuery(rest) }
        // "http://host" and "http://host?q" name the root (RFC 9112 §3.2.2).
        let query = rest.first == "?" ? String(rest.dropFirst()) : nil
        return (path: "/", query: query)
    }

    private static func splitQuery(_ text: Substring) -> (path: String, query: String?) {
        guard let mark = text.firstIndex(of: "?") else { return (path: String(text), query: nil) }
        return (path: String(text[..<mark]), query: String(text[text.index(after: mark)...]))
    }
}

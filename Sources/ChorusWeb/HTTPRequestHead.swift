/// A parsed request head: the request line and the header fields, checked by
/// `HTTPRequestParser`. The path is as sent (no percent-decoding): the router matches exactly.
public struct HTTPRequestHead: Sendable, Equatable {
    /// As sent, e.g. "GET".
    public var method: String
    /// The request-target as sent.
    public var target: String
    /// The origin-form path without the query ("/calendar/abc.ics"); an absolute-form target
    /// ("https://h/p?q") is reduced to its path ("/p"), and "*" (OPTIONS) stays "*".
    public var path: String
    /// What follows the first '?', nil when there is none.
    public var query: String?
    public var version: HTTPVersion
    /// Names lowercased, values without surrounding SP/HT, in the order sent; value bytes
    /// that are not UTF-8 (obs-text) read as U+FFFD.
    public var headers: [(name: String, value: String)]
    /// The body's length from Content-Length, 0 when absent.
    public var contentLength: Int

    public init(
        method: String, target: String, path: String, query: String?, version: HTTPVersion,
        headers: [(name: String, value: String)], contentLength: Int = 0
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.headers = headers
        self.contentLength = contentLength
    }

    /// The first value of the header `name` (any case), nil when it is absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    /// Every value of the header `name` (any case), comma-separated lists split into their
    /// elements, each trimmed; empty elements are left out (RFC 9110 §5.6.1).
    public func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        var values: [String] = []
        for field in headers where field.name == wanted {
            for element in field.value.split(separator: ",", omittingEmptySubsequences: true) {
                let trimmed = Self.withoutWhitespace(element)
                if !trimmed.isEmpty { values.append(String(trimmed)) }
            }
        }
        return values
    }

    private static func withoutWhitespace(_ text: Substring) -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }), let last = text.lastIndex(where: { !isWhitespace($0) }) else {
            return ""
        }
        return text[first...last]
    }

    /// Whether `token` (any case) is one of the elements of the comma list in header `name`,
    /// as "Upgrade" is in "Connection: keep-alive, Upgrade".
    public func hasToken(_ token: String, inHeader name: String) -> Bool {
        let wanted = token.lowercased()
        return headerValues(name).contains { $0.lowercased() == wanted }
    }

    /// Whether the connection stays open after the response (RFC 9112 §9.3): HTTP/1.1 unless
    /// the client sent "Connection: close"; HTTP/1.0 only when it asked for keep-alive.
    public var keepAlive: Bool {
        if hasToken("close", inHeader: "connection") { return false }
        switch version {
        case .http11: return true
        case .http10: return hasToken("keep-alive", inHeader: "connection")
        }
    }

    public static func == (left: HTTPRequestHead, right: HTTPRequestHead) -> Bool {
        left.method == right.method && left.target == right.target && left.path == right.path
            && left.query == right.query && left.version == right.version && left.contentLength == right.contentLength
            && left.headers.count == right.headers.count
            && zip(left.headers, right.headers).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

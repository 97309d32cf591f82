import Foundation

/// One HTTP/1.1 response as the server writes it (CONTRACT §9): the status, its own
/// headers and a body, serialised with the headers every response carries.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [Header]
    public var body: [UInt8]

    public struct Header: Sendable, Equatable {
        public let name: String
        public let value: String
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(status: Int, contentType: String? = nil, body: [UInt8] = [], headers: [Header] = []) {
        self.status = status
        self.body = body
        self.headers = (contentType.map { [Header("Content-Type", $0)] } ?? []) + headers
    }

    /// A short plain-text answer: `200 ok`, `404 not found`.
    public static func text(_ status: Int, _ text: String, headers: [Header] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8),
                     headers: headers)
    }

    /// The page's policy: nothing unless named, and what is named only from the server's
    /// own origin (`'self'` covers `wss:` to it): no inline script or style, no other host,
    /// no framing, forms only back here. Trusted Types make every HTML sink (`innerHTML`,
    /// `outerHTML`, `insertAdjacentHTML`, `document.write`) throw, so text can only ever
    /// reach the page as text; the one policy allowed, `chorus`, only names the service
    /// worker's script (`/sw.js`) and makes no HTML.
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types chorus"

    /// What every response carries.
    public static let securityHeaders: [Header] = [
        Header("Strict-Transport-Security", "max-age=31536000"),
        Header("X-Content-Type-Options", "nosniff"),
        Header("Referrer-Policy", "no-referrer"),
        Header("Content-Security-Policy", contentSecurityPolicy),
    ]

    /// The response's bytes. `headOnly` (a HEAD request, or a 304) leaves the body out but
    /// keeps its length; `close` says the connection ends after it.
    public func serialized(date: Date, headOnly: Bool, close: Bool) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        text += "Date: \(Self.httpDate(date))\r\n"
        for header in Self.securityHeaders + headers {
            text += "\(header.name): \(header.value)\r\n"
        }
        // 1xx and 304 carry no length; 101 leaves the connection to the new protocol.
        if status >= 200 && status != 204 && status != 304 {
            text += "Content-Length: \(body.count)\r\n"
        }
        if close && status != 101 { text += "Connection: close\r\n" }
        text += "\r\n"
        var out = Array(text.utf8)
        if !headOnly && status != 304 { out.append(contentsOf: body) }
        return out
    }

    /// The reason phrase of the statuses this server sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }

    /// RFC 9110's IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func httpDate(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

/// Parses one whole request head (request line, header fields, the blank line) into an
/// `HTTPRequestHead`, or the refusal it earns: RFC 9112's syntax strictly, plus the web
/// door's rules (known methods, Host, no Transfer-Encoding, a bounded Content-Length).
enum HTTPHeadParser {
    static func parse(_ head: ArraySlice<UInt8>, maxBodyBytes: Int) -> Result<HTTPRequestHead, HTTPRefusal> {
        guard let lines = splitLines(head) else { return .failure(.badRequest("CR without LF")) }
        guard let requestLine = lines.first else { return .failure(.badRequest("no request line")) }
        let fieldLines = lines.dropFirst()
        guard fieldLines.count <= HTTPRequestParser.maxHeaderCount else {
            return .failure(HTTPRefusal(status: 431, reason: "too many header fields"))
        }
        let line: RequestLine
        switch parseRequestLine(requestLine) {
        case .success(let parsed): line = parsed
        case .failure(let refusal): return .failure(refusal)
        }
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(fieldLines.count)
        for fieldLine in fieldLines {
            switch parseField(fieldLine) {
            case .success(let field): headers.append(field)
            case .failure(let refusal): return .failure(refusal)
            }
        }
        guard HTTPRequestParser.knownMethods.contains(line.method) else {
            return .failure(HTTPRefusal(status: 405, reason: "method not allowed"))
        }
        guard let form = HTTPRequestTarget.split(line.target, method: line.method) else {
            return .failure(.badRequest("bad request target"))
        }
        var head = HTTPRequestHead(
            method: line.method, target: line.target, path: form.path, query: form.query,
            version: line.version, headers: headers)
        let hosts = headers.count { $0.name == "host" }
        // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host; an HTTP/1.0 client may omit it.
        guard hosts == 1 || (hosts == 0 && line.version == .http10) else {
            return .failure(.badRequest(hosts == 0 ? "no Host header" : "more than one Host header"))
        }
        // No transfer codings at all: a body is Content-Length bytes or nothing, so the
        // length a proxy in front saw and the length read here can never disagree.
        if headers.contains(where: { $0.name == "transfer-encoding" }) {
            let both = headers.contains { $0.name == "content-length" }
            return .failure(.badRequest(both ? "both Content-Length and Transfer-Encoding" : "Transfer-Encoding is not supported"))
        }
        switch contentLength(head, maxBodyBytes: maxBodyBytes) {
        case .success(let length): head.contentLength = length
        case .failure(let refusal): return .failure(refusal)
        }
        return .success(head)
    }

    private struct RequestLine {
        var method: String
        var target: String
        var version: HTTPVersion
    }

    /// The head's lines without their endings (CRLF or a bare LF), the blank last one left
    /// out; nil when a CR stands anywhere but right before an LF.
    private static func splitLines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>]? {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = head.startIndex
        for index in head.indices where head[index] == HTTPSyntax.lf {
            var end = index
            if end > lineStart && head[end - 1] == HTTPSyntax.cr { end -= 1 }
            let line = head[lineStart..<end]
            if line.contains(HTTPSyntax.cr) { return nil }
            lines.append(line)
            lineStart = index + 1
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// method SP request-target SP HTTP-version, single spaces only.
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> Result<RequestLine, HTTPRefusal> {
        let parts = line.split(separator: HTTPSyntax.space, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .failure(.badRequest("bad request line"))
        }
        guard parts[0].allSatisfy(HTTPSyntax.isTokenChar) else { return .failure(.badRequest("bad method")) }
        guard parts[1].allSatisfy(HTTPSyntax.isVisibleASCII) else { return .failure(.badRequest("bad request target")) }
        let version: HTTPVersion
        switch String(decoding: parts[2], as: UTF8.self) {
        case "HTTP/1.1": version = .http11
        case "HTTP/1.0": version = .http10
        case let other where isVersionSyntax(other):
            return .failure(HTTPRefusal(status: 505, reason: "HTTP version not supported"))
        default:
            return .failure(.badRequest("bad HTTP version"))
        }
        return .success(RequestLine(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
            version: version))
    }

    /// "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3): a well-formed version this server does not speak gets 505.
    private static func isVersionSyntax(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        return bytes.count == 8 && text.hasPrefix("HTTP/") && isDigit(bytes[5]) && bytes[6] == UInt8(ascii: ".") && isDigit(bytes[7])
    }

    /// field-name ":" OWS field-value OWS. No whitespace before the colon (RFC 9112 §5.1) and
    /// no obs-fold (a line starting with SP or HT, §5.2): both are refused, not repaired.
    private static func parseField(_ line: ArraySlice<UInt8>) -> Result<(name: String, value: String), HTTPRefusal> {
        guard let first = line.first, !HTTPSyntax.isOptionalWhitespace(first) else {
            return .failure(.badRequest("folded header line"))
        }
        guard let colon = line.firstIndex(of: HTTPSyntax.colon) else { return .failure(.badRequest("header line without a colon")) }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(HTTPSyntax.isTokenChar) else { return .failure(.badRequest("bad header name")) }
        let value = HTTPSyntax.trimmed(line[(colon + 1)...])
        guard !value.contains(where: HTTPSyntax.isForbiddenInValue) else {
            return .failure(.badRequest("control character in a header value"))
        }
        return .success((name: HTTPSyntax.lowercased(name), value: String(decoding: value, as: UTF8.self)))
    }

    /// The body's length: every Content-Length element must be digits and all must agree
    /// (RFC 9112 §6.3); over `maxBodyBytes` is a 413, decided before any of the body is read.
    private static func contentLength(_ head: HTTPRequestHead, maxBodyBytes: Int) -> Result<Int, HTTPRefusal> {
        var length: Int?
        for field in head.headers where field.name == "content-length" {
            for element in field.value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let digits = HTTPSyntax.trimmed(ArraySlice(element))
                guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                    return .failure(.badRequest("bad Content-Length"))
                }
                let significant = digits.drop { $0 == UInt8(ascii: "0") }
                // More digits than Int holds is certainly over the limit.
                guard significant.count <= 18 else { return .failure(bodyTooLarge) }
                let value = significant.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                if let length, length != value { return .failure(.badRequest("Content-Length values differ")) }
                length = value
            }
        }
        guard let length else { return .success(0) }
        guard length <= maxBodyBytes else { return .failure(bodyTooLarge) }
        return .success(length)
    }

    private static let bodyTooLarge = HTTPRefusal(status: 413, reason: "request body too large")
}

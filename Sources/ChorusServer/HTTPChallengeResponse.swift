import ChorusWeb

/// What the http-01 listener answers (RFC 8555 §8.3): the key authorization for a GET of
/// `/.well-known/acme-challenge/TOKEN` it holds, 404 for anything else. Pure.
enum HTTPChallengeResponse {
    static let prefix = "/.well-known/acme-challenge/"

    /// The whole response, ready to write; the connection closes after it.
    static func bytes(for request: HTTPParse?, answers: [String: String]) -> [UInt8] {
        guard case .request(let head, _)? = request else { return response(400, "bad request\n") }
        guard head.method == "GET" || head.method == "HEAD", head.path.hasPrefix(prefix) else {
            return response(404, "not found\n")
        }
        let token = String(head.path.dropFirst(prefix.count))
        guard let answer = answers[token] else { return response(404, "not found\n") }
        return response(200, head.method == "HEAD" ? nil : answer, length: answer.utf8.count)
    }

    private static func response(_ status: Int, _ body: String?, length: Int? = nil) -> [UInt8] {
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found"][status] ?? "Error"
        let text = body ?? ""
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain\r\n"
        head += "Content-Length: \(length ?? text.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + text).utf8)
    }
}

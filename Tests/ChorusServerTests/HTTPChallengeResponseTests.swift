@testable import ChorusServer
import ChorusWeb
import Testing

/// What the `--acme-http-port` listener answers: the key authorization for its token,
/// 404 for anything else, 400 for what is not a request.
@Suite struct HTTPChallengeResponseTests {
    static func answer(_ request: String) -> String {
        var parser = HTTPRequestParser(maxHeadBytes: 8 * 1024, maxBodyBytes: 0)
        parser.append(Array(request.utf8))
        return String(decoding: HTTPChallengeResponse.bytes(for: parser.next(), answers: ["tok": "tok.thumb"]), as: UTF8.self)
    }

    @Test func theTokensKeyAuthorizationAndNothingElse() {
        let found = Self.answer("GET /.well-known/acme-challenge/tok HTTP/1.1\r\nHost: chores.test\r\n\r\n")
        #expect(found.hasPrefix("HTTP/1.1 200 OK\r\n") && found.hasSuffix("\r\n\r\ntok.thumb"))
        #expect(Self.answer("GET /.well-known/acme-challenge/other HTTP/1.1\r\nHost: h\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        #expect(Self.answer("GET / HTTP/1.1\r\nHost: h\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        #expect(Self.answer("POST /.well-known/acme-challenge/tok HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        #expect(Self.answer("\u{16}\u{3}\u{1} junk\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        let head = Self.answer("HEAD /.well-known/acme-challenge/tok HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(head.contains("Content-Length: 9\r\n") && head.hasSuffix("\r\n\r\n"))
    }
}

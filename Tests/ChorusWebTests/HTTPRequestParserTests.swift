import ChorusWeb
import Testing

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    /// The request line and fields come out as sent, names lowercased and values trimmed.
    @Test func simpleGet() throws {
        let (head, body) = try #require(onlyRequest("GET /calendar/abc.ics?x=1&y HTTP/1.1\r\nHost: chorus.example\r\nX-Thing: \t spaced value \t\r\nAccept: a, b\r\nACCEPT: c\r\n\r\n"))
        #expect(head.method == "GET")
        #expect(head.target == "/calendar/abc.ics?x=1&y")
        #expect(head.path == "/calendar/abc.ics")
        #expect(head.query == "x=1&y")
        #expect(head.version == .http11)
        #expect(head.headers.map(\.name) == ["host", "x-thing", "accept", "accept"])
        #expect(head.header("X-THING") == "spaced value")
        #expect(head.header("accept") == "a, b")
        #expect(head.headerValues("Accept") == ["a", "b", "c"])
        #expect(head.header("missing") == nil)
        #expect(head.contentLength == 0 && body.isEmpty)
    }

    /// No '?' is no query; a bare '?' is an empty one.
    @Test func queryPresence() throws {
        #expect(try #require(onlyRequest("GET /a HTTP/1.1\r\nHost: h\r\n\r\n")).head.query == nil)
        #expect(try #require(onlyRequest("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n")).head.query == "")
        #expect(try #require(onlyRequest("GET /a?b?c HTTP/1.1\r\nHost: h\r\n\r\n")).head.query == "b?c")
    }

    /// Percent-escapes stay as sent: the router matches the path exactly.
    @Test func pathIsNotDecoded() throws {
        #expect(try #require(onlyRequest("GET /a%2Fb HTTP/1.1\r\nHost: h\r\n\r\n")).head.path == "/a%2Fb")
    }

    /// A body is exactly Content-Length bytes; what follows is the next request.
    @Test func bodyAndPipelining() {
        let input = bytes("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\nPUT /c HTTP/1.0\r\nContent-Length: 2\r\n\r\nok")
        let outputs = parseHTTP(input)
        #expect(outputs.count == 3)
        guard outputs.count == 3, case .request(let first, let firstBody) = outputs[0], case .request(let second, let secondBody) = outputs[1],
              case .request(let third, let thirdBody) = outputs[2] else { return }
        #expect(first.method == "POST" && first.path == "/a" && first.contentLength == 5 && firstBody == bytes("hello"))
        #expect(second.method == "GET" && second.path == "/b" && secondBody.isEmpty)
        #expect(third.method == "PUT" && third.version == .http10 && thirdBody == bytes("ok"))
    }

    /// However the bytes are cut (once anywhere, or at every byte), the same requests come out.
    @Test func everySplitGivesTheSameRequests() {
        let input = bytes("\r\nPOST /a?q HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc\r\nGET / HTTP/1.1\nHost: h\n\nGET /x HTTP/1.1\r\nHost: h\r\nBad\r\n\r\n")
        let whole = parseHTTP(input)
        #expect(whole.count == 3)
        #expect(whole.last == .refusal(HTTPRefusal(status: 400, reason: "header line without a colon")))
        for cut in 0...input.count {
            #expect(parseHTTP(input, chunks: [cut]) == whole, "cut at \(cut)")
        }
        #expect(parseHTTP(input, chunks: everyByte(input.count)) == whole)
    }

    /// A request waiting for its body is not given out until the last byte is in.
    @Test func bodyWaitsForItsLastByte() {
        var parser = HTTPRequestParser()
        parser.append(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab"))
        #expect(parser.next() == nil)
        #expect(parser.hasStartedRequest)
        parser.append(bytes("c"))
        #expect(parser.next() == nil)
        parser.append(bytes("d"))
        guard case .request(_, let body)? = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(body == bytes("abcd"))
        #expect(parser.bufferedCount == 0 && !parser.hasStartedRequest)
    }

    /// Empty lines before a request line are skipped (RFC 9112 §2.2) and do not start a request.
    @Test func leadingEmptyLines() {
        var parser = HTTPRequestParser()
        parser.append(bytes("\r\n\n\r"))
        #expect(parser.next() == nil)
        #expect(!parser.hasStartedRequest)
        parser.append(bytes("\nG"))
        #expect(parser.next() == nil)
        #expect(parser.hasStartedRequest)
        parser.append(bytes("ET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        guard case .request(let head, _)? = parser.next() else {
            Issue.record("no request")
            return
        }
        #expect(head.method == "GET")
    }

    /// Bare LF line ends are accepted, as nginx does; a CR not before an LF is not.
    @Test func lineEndings() {
        #expect(onlyRequest("GET / HTTP/1.1\nHost: h\n\n") != nil)
        #expect(onlyRequest("GET / HTTP/1.1\r\nHost: h\n\r\n") != nil)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n") == 400)
        #expect(refusalStatus("GET /\r HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\n\r\r\n") == 400)
        // Refused at the byte after the CR, without waiting for the head to end.
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\rX") == 400)
        #expect(parseHTTP(bytes("GET / HTTP/1.1\r\nHost: h\r")).isEmpty)
    }

    /// The absolute form is reduced to its path and query; other schemes and empty hosts are refused.
    @Test func absoluteForm() throws {
        let head = try #require(onlyRequest("GET https://chorus.example:8443/calendar/x.ics?a=b HTTP/1.1\r\nHost: chorus.example:8443\r\n\r\n")).head
        #expect(head.path == "/calendar/x.ics" && head.query == "a=b")
        #expect(head.target == "https://chorus.example:8443/calendar/x.ics?a=b")
        let root = try #require(onlyRequest("GET HTTP://h HTTP/1.1\r\nHost: h\r\n\r\n")).head
        #expect(root.path == "/" && root.query == nil)
        let rootQuery = try #require(onlyRequest("GET http://h?x HTTP/1.1\r\nHost: h\r\n\r\n")).head
        #expect(rootQuery.path == "/" && rootQuery.query == "x")
        #expect(refusalStatus("GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET http:///p HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    /// "*" is OPTIONS's alone; any other target must start with "/" and hold no fragment.
    @Test func targetForms() throws {
        let star = try #require(onlyRequest("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")).head
        #expect(star.path == "*" && star.query == nil)
        #expect(refusalStatus("GET * HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET index.html HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET h:443 HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    /// A target with a control, a NUL, a space or an 8-bit byte is refused.
    @Test func targetBytes() {
        for bad in ["/a\u{01}b", "/a\u{00}b", "/a\u{7F}", "/caf\u{E9}"] {
            #expect(refusalStatus("GET \(bad) HTTP/1.1\r\nHost: h\r\n\r\n") == 400, "\(bad.utf8.map { $0 })")
        }
        #expect(refusalStatus("GET /a b HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    /// The request line is three parts with single spaces.
    @Test func requestLineShape() {
        #expect(refusalStatus("GET  / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1 \r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus(" GET / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET /\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET\r\n\r\n") == 400)
        #expect(refusalStatus("GE(T / HTTP/1.1\r\nHost: h\r\n\r\n") == 400)
    }

    /// A method that is a token but not served gets 405; methods are case-sensitive.
    @Test func unknownMethods() {
        #expect(refusalStatus("PATCH / HTTP/1.1\r\nHost: h\r\n\r\n") == 405)
        #expect(refusalStatus("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n") == 405)
        #expect(refusalStatus("get / HTTP/1.1\r\nHost: h\r\n\r\n") == 405)
        for method in HTTPRequestParser.knownMethods {
            #expect(onlyRequest("\(method) / HTTP/1.1\r\nHost: h\r\n\r\n") != nil, "\(method)")
        }
    }

    /// HTTP/1.0 and 1.1 only: another well-formed version is 505, a malformed one 400.
    @Test func versions() {
        #expect(refusalStatus("GET / HTTP/2.0\r\nHost: h\r\n\r\n") == 505)
        #expect(refusalStatus("GET / HTTP/0.9\r\nHost: h\r\n\r\n") == 505)
        #expect(refusalStatus("GET / HTTP/1.1x\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / http/1.1\r\nHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/11\r\nHost: h\r\n\r\n") == 400)
    }

    /// Field lines: no fold, no whitespace before the colon, a token name, no controls but HT in the value.
    @Test func fieldSyntax() throws {
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  2\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\n\tHost: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost : h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost\t: h\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nX(y): z\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{01}b\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{00}b\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7F}\r\n\r\n") == 400)
        let head = try #require(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\nX: a\tb\r\nY: caf\u{E9}\r\nZ:\r\n\r\n")).head
        #expect(head.header("x") == "a\tb")
        #expect(head.header("y") == "caf\u{E9}")
        #expect(head.header("z") == "")
    }

    /// HTTP/1.1 needs exactly one Host; HTTP/1.0 at most one.
    @Test func hostRules() {
        #expect(refusalStatus("GET / HTTP/1.1\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n") == 400)
        #expect(onlyRequest("GET / HTTP/1.0\r\n\r\n") != nil)
        #expect(onlyRequest("GET / HTTP/1.0\r\nHost: a\r\n\r\n") != nil)
        #expect(refusalStatus("GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n") == 400)
        #expect(onlyRequest("GET / HTTP/1.1\r\nhOsT: a\r\n\r\n") != nil)
    }

    /// HTTP/1.1 stays open unless told to close; HTTP/1.0 closes unless told to keep alive.
    @Test func keepAlive() throws {
        #expect(try #require(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\n\r\n")).head.keepAlive)
        #expect(try !#require(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n")).head.keepAlive)
        #expect(try !#require(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, close\r\n\r\n")).head.keepAlive)
        #expect(try !#require(onlyRequest("GET / HTTP/1.0\r\n\r\n")).head.keepAlive)
        #expect(try #require(onlyRequest("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n")).head.keepAlive)
        #expect(try !#require(onlyRequest("GET / HTTP/1.0\r\nConnection: keep-alive-ish\r\n\r\n")).head.keepAlive)
    }

    /// Tokens are matched whole and in any case across every Connection field.
    @Test func tokens() throws {
        let head = try #require(onlyRequest("GET /ws HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\nConnection: ,x\r\n\r\n")).head
        #expect(head.hasToken("upgrade", inHeader: "Connection"))
        #expect(head.hasToken("X", inHeader: "connection"))
        #expect(!head.hasToken("keep", inHeader: "connection"))
        #expect(!head.hasToken("upgrade", inHeader: "upgrade"))
        #expect(head.headerValues("connection") == ["keep-alive", "Upgrade", "x"])
    }

    /// A head of exactly the limit passes; one byte more is 431.
    @Test func headLimit() {
        let prefix = "GET / HTTP/1.1\r\nHost: h\r\nX: "
        let filler = String(repeating: "a", count: HTTPRequestParser.maxHeadBytes - prefix.utf8.count - 4)
        let exact = prefix + filler + "\r\n\r\n"
        #expect(exact.utf8.count == HTTPRequestParser.maxHeadBytes)
        #expect(onlyRequest(exact) != nil)
        #expect(refusalStatus(prefix + filler + "a\r\n\r\n") == 431)
        // Empty lines before the request count too.
        #expect(refusalStatus("\r\n" + exact) == 431)
    }

    /// Past the head limit, a bare CR or the end of the head makes no difference: 431 whether
    /// the bytes come whole or one by one (the fuzzer found the whole input giving 400).
    @Test func headLimitComesBeforeWhatLiesBeyondIt() {
        let limit = 64
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: limit) + "\rX\r\n\r\n"
        let emptyLines = String(repeating: "\n", count: limit) + "\rX"
        let crlfLines = String(repeating: "\r\n", count: limit / 2) + "\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"
        for text in [long, emptyLines, crlfLines] {
            let input = bytes(text)
            let whole = parseHTTP(input, maxHead: limit)
            #expect(whole == [.refusal(HTTPRefusal(status: 431, reason: "request head too large"))], "\(text)")
            #expect(parseHTTP(input, chunks: everyByte(input.count), maxHead: limit) == whole, "\(text)")
        }
        // The same CR within the limit is a 400.
        #expect(parseHTTP(bytes("GET / HTTP/1.1\r\nX: a\rX\r\n\r\n"), maxHead: limit) == [.refusal(HTTPRefusal(status: 400, reason: "CR without LF"))])
    }

    /// A head that never ends is refused once it passes the limit, holding no more than the
    /// limit and one read meanwhile.
    @Test func endlessHeadIsBounded() {
        var parser = HTTPRequestParser(maxHeadBytes: 2048)
        parser.append(bytes("GET / HTTP/1.1\r\nHost: h\r\nX: "))
        var refusal: HTTPParse?
        for _ in 0..<100 where refusal == nil {
            parser.append([UInt8](repeating: UInt8(ascii: "a"), count: 100))
            #expect(parser.bufferedCount <= 2048 + 100)
            refusal = parser.next()
        }
        #expect(refusal == .refusal(HTTPRefusal(status: 431, reason: "request head too large")))
        #expect(parser.bufferedCount == 0)
    }

    /// 100 header fields are fine; 101 are 431, however short.
    @Test func headerCount() {
        let fields = (0..<99).map { "X-\($0): v\r\n" }.joined()
        #expect(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "\r\n") != nil)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\n" + fields + "Y: v\r\n\r\n") == 431)
    }

    /// Content-Length over 64 KiB is 413 as soon as the head is in, before any body.
    @Test func bodyLimit() {
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65537\r\n\r\n") == 413)
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999999\r\n\r\n") == 413)
        let body = [UInt8](repeating: 7, count: HTTPRequestParser.maxBodyBytes)
        let outputs = parseHTTP(bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65536\r\n\r\n") + body)
        #expect(outputs.count == 1)
        if case .request(let head, let got)? = outputs.first {
            #expect(head.contentLength == 65536 && got == body)
        } else {
            Issue.record("no request")
        }
    }

    /// Content-Length: digits only; repeats (in one field or several) must agree.
    @Test func contentLengthValues() throws {
        for bad in ["abc", "-1", "+5", "", "5 5", "0x10", "1.0"] {
            #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(bad)\r\n\r\n") == 400, "\(bad)")
        }
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\nhello!") == 400)
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!") == 400)
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,\r\n\r\nhello") == 400)
        let agreed = try #require(onlyRequest("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\ncontent-length: 005\r\n\r\nhello"))
        #expect(agreed.head.contentLength == 5 && agreed.body == bytes("hello"))
    }

    /// Any Transfer-Encoding is refused, with or without Content-Length.
    @Test func transferEncoding() {
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400)
        #expect(refusalStatus("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc") == 400)
        #expect(refusalStatus("GET / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n") == 400)
        #expect(refusalStatus("GET / HTTP/1.0\r\nTransfer-Encoding: gzip\r\n\r\n") == 400)
    }

    /// After a refusal the parser is finished: the refusal once, then nil, and no bytes kept.
    @Test func refusalIsFinal() {
        var parser = HTTPRequestParser()
        parser.append(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\nBREW / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        guard case .request? = parser.next() else {
            Issue.record("no first request")
            return
        }
        #expect(parser.next() == .refusal(HTTPRefusal(status: 405, reason: "method not allowed")))
        #expect(parser.refusal?.status == 405)
        #expect(parser.next() == nil)
        #expect(parser.bufferedCount == 0 && !parser.hasStartedRequest)
        parser.append(bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(parser.next() == nil && parser.bufferedCount == 0)
    }

    /// Heads compare field by field, headers included.
    @Test func headEquality() throws {
        let first = try #require(onlyRequest("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n\r\n")).head
        var second = first
        #expect(first == second)
        second.headers[1].value = "2"
        #expect(first != second)
    }
}

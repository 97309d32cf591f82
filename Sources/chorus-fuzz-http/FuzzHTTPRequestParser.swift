import ChorusFuzzSupport
import ChorusWeb

/// libFuzzer entry point: the bytes a browser could send go through `HTTPRequestParser` the
/// way a connection feeds it (chunks of a size the first byte picks; after each, requests
/// taken until nil, except every few chunks, as while a response is being written), and
/// again in one piece: both must give the same requests and refusal. Any trap is a bug.
/// Only in fuzz builds: the corpus test links all three fuzz targets.
#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequestParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    HTTPFuzzInput.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#endif

enum HTTPFuzzInput {
    /// Small limits, so inputs of a few KiB reach every refusal.
    static let maxHead = 1024
    static let maxBody = 256
    static let refusalStatuses: Set<Int> = [400, 405, 413, 431, 505]

    static func run(_ input: [UInt8]) {
        let recipe = Int(input.first ?? 0)
        let stream = Array(input.dropFirst())
        let chunked = parse(stream, chunk: recipe % 61 + 1, busyEvery: recipe / 61 + 2)
        let whole = parse(stream, chunk: max(stream.count, 1), busyEvery: Int.max)
        precondition(chunked == whole, "the same bytes split differently parsed differently")
        checkSniff(stream, first: whole.first)
    }

    /// Everything `next()` returns for `stream` fed in chunks of `chunk` bytes, checking the
    /// parser's promises after every step.
    static func parse(_ stream: [UInt8], chunk: Int, busyEvery: Int) -> [HTTPParse] {
        var parser = HTTPRequestParser(maxHeadBytes: maxHead, maxBodyBytes: maxBody)
        var outputs: [HTTPParse] = []
        var offset = 0
        var round = 0
        var sinceDrain = 0
        while offset < stream.count {
            let end = min(stream.count, offset + chunk)
            parser.append(stream[offset..<end])
            sinceDrain += end - offset
            offset = end
            round += 1
            precondition(parser.bufferedCount <= maxHead + maxBody + sinceDrain, "the parser held more than its limits allow")
            if round % busyEvery != 0 {
                drain(&parser, into: &outputs)
                sinceDrain = 0
            }
        }
        drain(&parser, into: &outputs)
        return outputs
    }

    static func drain(_ parser: inout HTTPRequestParser, into outputs: inout [HTTPParse]) {
        while let output = parser.next() {
            precondition(!outputs.contains { if case .refusal = $0 { true } else { false } }, "something came after a refusal")
            switch output {
            case .request(let head, let body):
                check(head, body: body)
            case .refusal(let refusal):
                precondition(refusalStatuses.contains(refusal.status), "an unexpected refusal status")
                precondition(parser.refusal == refusal, "the refusal is not kept")
                precondition(parser.bufferedCount == 0 && !parser.hasStartedRequest, "a refused parser still holds bytes")
            }
            outputs.append(output)
        }
        if parser.refusal != nil {
            parser.append([UInt8(ascii: "G")])
            precondition(parser.bufferedCount == 0 && parser.next() == nil, "a refused parser took more bytes")
        }
    }

    /// What no request that comes out may break.
    static func check(_ head: HTTPRequestHead, body: [UInt8]) {
        precondition(HTTPRequestParser.knownMethods.contains(head.method), "an unknown method came out")
        precondition(body.count == head.contentLength && head.contentLength <= maxBody, "a body of the wrong size")
        precondition(head.path.hasPrefix("/") || (head.path == "*" && head.method == "OPTIONS"), "a path that is no path")
        precondition(head.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "a target with a control, space or 8-bit byte")
        precondition(head.path.utf8.count + (head.query?.utf8.count ?? 0) <= head.target.utf8.count, "path and query longer than the target")
        precondition(head.header("transfer-encoding") == nil, "a transfer coding came through")
        let hosts = head.headers.count { $0.name == "host" }
        precondition(hosts == 1 || (hosts == 0 && head.version == .http10), "a Host rule broken")
        precondition(head.headers.count <= HTTPRequestParser.maxHeaderCount, "too many header fields came through")
        for field in head.headers {
            precondition(!field.name.isEmpty && field.name == field.name.lowercased(), "a header name not lowercased")
            precondition(!field.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control in a header value")
            precondition(field.value.first != " " && field.value.last != " ", "a header value not trimmed")
        }
        _ = head.keepAlive
        _ = head.headerValues("connection")
    }

    /// A stream the parser takes as a request from its first byte must sniff as HTTP, and no
    /// prefix of it may sniff as not HTTP: otherwise a browser without ALPN would be greeted
    /// with the line protocol.
    static func checkSniff(_ stream: [UInt8], first: HTTPParse?) {
        guard case .request? = first, let byte = stream.first, byte != UInt8(ascii: "\r"), byte != UInt8(ascii: "\n") else { return }
        for length in 0...min(stream.count, 8) {
            let verdict = stream.withUnsafeBytes { HTTPRequestParser.looksLikeRequestLine(UnsafeRawBufferPointer(rebasing: $0[..<length])) }
            precondition(verdict != .notHTTP, "a request's beginning sniffed as not HTTP")
        }
        let verdict = stream.withUnsafeBytes { HTTPRequestParser.looksLikeRequestLine($0) }
        precondition(verdict == .http, "a whole request did not sniff as HTTP")
    }
}

#if !FUZZING
/// Without libFuzzer (a normal build), replays files given as arguments.
@main
struct ReplayHTTPFuzzInputs {
    static func main() {
        FuzzReplay.main(HTTPFuzzInput.run)
    }
}
#endif

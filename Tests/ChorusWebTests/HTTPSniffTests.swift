import ChorusWeb
import Testing

@Suite("HTTP sniffing")
struct HTTPSniffTests {
    private func sniff(_ text: String) -> HTTPRequestParser.Sniff {
        Array(text.utf8).withUnsafeBytes { HTTPRequestParser.looksLikeRequestLine($0) }
    }

    /// A known method and its space mark HTTP, whatever follows.
    @Test func knownMethods() {
        for method in HTTPRequestParser.knownMethods {
            #expect(sniff(method + " ") == .http, "\(method)")
            #expect(sniff(method + " /ws HTTP/1.1\r\n") == .http, "\(method)")
        }
    }

    /// Any beginning of a method (space included) needs more bytes.
    @Test func prefixesNeedMore() {
        for text in ["", "G", "GE", "GET", "P", "PU", "PO", "D", "DELETE", "O", "OPTION", "H", "HEAD"] {
            #expect(sniff(text) == .needMore, "\(text)")
        }
    }

    /// Line-protocol commands, a TLS record, lowercase and unserved methods are not HTTP.
    @Test func notHTTP() {
        for text in ["PING\r\n", "LOGIN alice", "GETX", "GET/", "get ", "PATCH ", "\u{16}\u{03}", "\r\nGET ", " GET "] {
            #expect(sniff(text) == .notHTTP, "\(text)")
        }
    }
}

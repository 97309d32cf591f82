extension HTTPRequestParser {
    /// What a connection's first bytes say, when the client offered no ALPN.
    public enum Sniff: Sendable, Equatable {
        /// They begin a request line of a known method ("GET ", "HEAD ", ...).
        case http
        /// They cannot: the connection speaks the line protocol.
        case notHTTP
        /// Too few bytes to tell yet.
        case needMore
    }

    /// The method prefixes that mark HTTP, with the space that ends the method.
    static let methodPrefixes: [[UInt8]] = knownMethods.sorted().map { Array(($0 + " ").utf8) }

    /// Whether `prefix` (a connection's first bytes) could be the start of an HTTP/1.1
    /// request line of a known method. Methods are case-sensitive, so "get " is no request;
    /// no line command of the chorus protocol is a method name followed by a space.
    public static func looksLikeRequestLine(_ prefix: UnsafeRawBufferPointer) -> Sniff {
        var couldStillBe = false
        for method in methodPrefixes {
            let compared = min(prefix.count, method.count)
            guard prefix.prefix(compared).elementsEqual(method.prefix(compared)) else { continue }
            if compared == method.count { return .http }
            couldStillBe = true
        }
        return couldStillBe ? .needMore : .notHTTP
    }
}

import ChorusWeb

/// A connection that speaks HTTP/1.1 (CONTRACT §9): its request parser, and whether a
/// request is being answered off the loop (a feed, a health check), which the next one
/// waits for so responses keep request order. Loop thread only.
final class HTTPExchange {
    var parser = HTTPRequestParser()
    /// A request is out being answered, or waits for a rate token; reading is paused
    /// until it is.
    var answering = false
    /// A request taken from the parser that waits for a token (`--rate`).
    var held: HTTPParse?

    init() {}
}

@available(*, unavailable)
extension HTTPExchange: Sendable {}

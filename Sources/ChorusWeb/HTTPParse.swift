/// What `HTTPRequestParser.next()` found: a whole request with its body, or a refusal.
public enum HTTPParse: Sendable, Equatable {
    case request(HTTPRequestHead, body: [UInt8])
    case refusal(HTTPRefusal)
}

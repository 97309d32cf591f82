/// One HTTPS request to send: what push, mail relays over HTTP and ACME ask for.
public struct OutboundRequest: Sendable {
    public var method: String
    public var url: String
    /// In order; names and values are checked before sending (`validate`).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String = "POST", url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A header name is an HTTP token and a value holds no CR, LF or NUL, so nothing a
    /// caller passes on (a topic, a label) can add a header or end the head early.
    func validate(origin: String) throws(OutboundError) {
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenByte) else {
            throw OutboundError(.invalidRequest, origin: origin, "the method is not an HTTP token")
        }
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw OutboundError(.invalidRequest, origin: origin, "header name \"\(name)\" is not an HTTP token")
            }
            guard !value.utf8.contains(where: { $0 == 0x0d || $0 == 0x0a || $0 == 0 }) else {
                throw OutboundError(.invalidRequest, origin: origin, "the value of header \(name) holds a line break or NUL")
            }
        }
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

import ChorusProtocol

/// A frame's opcode (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10

    var isControl: Bool { rawValue >= 8 }
}

/// The close codes this server sends, and the ones it reads (RFC 6455 §7.4.1).
public enum WebSocketCloseCode: UInt16, Sendable {
    case normal = 1000, goingAway = 1001, protocolError = 1002, unsupportedData = 1003, invalidPayload = 1007,
         policyViolation = 1008, messageTooBig = 1009, internalError = 1011

    /// Whether a peer may send `code` in a close frame: the registered codes but those
    /// that must never be on the wire (1004-1006, 1015), and the 3000-4999 ranges for
    /// libraries and applications.
    public static func mayBeSent(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014: true
        case 3000...4999: true
        default: false
        }
    }
}

/// What a client's frames say, message by message.
public enum WebSocketInput: Sendable, Equatable {
    /// A whole text message, its fragments joined; valid UTF-8.
    case text([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close; `code` nil when it sent none.
    case close(code: UInt16?, reason: String)
    /// The frames broke a rule: the server sends a close with this code and hangs up.
    case failure(WebSocketCloseCode)
}

/// The frames a server sends: never masked.
public enum WebSocketFrameEncoder {
    public static func appendHeader(opcode: WebSocketOpcode, payloadLength: Int, fin: Bool = true, to out: inout [UInt8]) {
        WebSocketFrameHeader.append(opcode: opcode.rawValue, payloadLength: payloadLength, fin: fin, to: &out)
    }

    public static func header(opcode: WebSocketOpcode, payloadLength: Int, fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        appendHeader(opcode: opcode, payloadLength: payloadLength, fin: fin, to: &out)
        return out
    }

    public static func frame(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out = header(opcode: opcode, payloadLength: payload.count)
        out.append(contentsOf: payload)
        return out
    }

    public static func text(_ payload: some Collection<UInt8>) -> [UInt8] { frame(.text, payload) }
    public static func ping(_ payload: [UInt8]) -> [UInt8] { frame(.ping, payload.prefix(125)) }
    public static func pong(_ payload: [UInt8]) -> [UInt8] { frame(.pong, payload.prefix(125)) }

    /// A close frame with `code` and a reason cut to fit 125 bytes on a character boundary.
    public static func close(_ code: WebSocketCloseCode, reason: String = "") -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var room = 123
        for character in reason {
            let bytes = Array(String(character).utf8)
            guard bytes.count <= room else { break }
            payload += bytes
            room -= bytes.count
        }
        return frame(.close, payload)
    }
}

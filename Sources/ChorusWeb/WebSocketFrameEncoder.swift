import ChorusProtocol

/// Writes the server's WebSocket frames (RFC 6455 §5.2): unmasked, as a server's must be.
public enum WebSocketFrameEncoder {
    /// The frame header for a payload of `payloadLength` bytes: 2 bytes up to 125, 4 up to 65535, else 10.
    public static func header(opcode: WebSocketOpcode, payloadLength: Int, fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(10)
        appendHeader(opcode: opcode, payloadLength: payloadLength, fin: fin, to: &out)
        return out
    }

    /// The head is ChorusProtocol's, which also frames every event once for all its
    /// WebSocket recipients (`RenderedEvent.webSocket`): one rule for both.
    public static func appendHeader(opcode: WebSocketOpcode, payloadLength: Int, fin: Bool = true, to out: inout [UInt8]) {
        WebSocketFrameHeader.append(opcode: opcode.rawValue, payloadLength: payloadLength, fin: fin, to: &out)
    }

    /// One whole text message in one frame.
    public static func text(_ payload: some Collection<UInt8>) -> [UInt8] {
        frame(.text, payload)
    }

    /// A close frame with `code` and as much of `reason` as fits the 125-byte control limit,
    /// cut between characters so it stays UTF-8.
    public static func close(_ code: WebSocketCloseCode, reason: String = "") -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard payload.count + encoded.count <= WebSocketFrameDecoder.maxControlPayload else { break }
            payload.append(contentsOf: encoded)
        }
        return frame(.close, payload)
    }

    /// A pong echoing a ping's payload (which the decoder keeps within 125 bytes); a longer
    /// one is cut rather than sent as a frame the client must refuse.
    public static func pong(_ payload: [UInt8]) -> [UInt8] {
        frame(.pong, payload.prefix(WebSocketFrameDecoder.maxControlPayload))
    }

    /// A ping; a payload over 125 bytes is cut, as for `pong`.
    public static func ping(_ payload: [UInt8]) -> [UInt8] {
        frame(.ping, payload.prefix(WebSocketFrameDecoder.maxControlPayload))
    }

    private static func frame(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(10 + payload.count)
        appendHeader(opcode: opcode, payloadLength: payload.count, to: &out)
        out.append(contentsOf: payload)
        return out
    }
}

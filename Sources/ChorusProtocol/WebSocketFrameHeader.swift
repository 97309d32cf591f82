/// The head of a WebSocket frame the server sends (RFC 6455 §5.2): FIN, the opcode, and
/// the payload length in 7, 7+16 or 7+64 bits; never masked (only clients mask). Here, not
/// in ChorusWeb, because an event's WebSocket form is rendered with its other two forms
/// (`RenderedEvent`); ChorusWeb's encoder writes every frame head through this one.
public enum WebSocketFrameHeader {
    /// Opcode 1, a text frame.
    public static let textOpcode: UInt8 = 0x1

    /// Appends the head of an unmasked frame with `opcode` and `payloadLength` bytes.
    public static func append(opcode: UInt8, payloadLength: Int, fin: Bool = true, to out: inout [UInt8]) {
        precondition(payloadLength >= 0 && opcode < 16)
        out.append((fin ? 0x80 : 0) | opcode)
        if payloadLength < 126 {
            out.append(UInt8(payloadLength))
        } else if payloadLength <= 0xFFFF {
            out.append(126)
            out.append(UInt8(payloadLength >> 8))
            out.append(UInt8(payloadLength & 0xFF))
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((UInt64(payloadLength) >> UInt64(shift)) & 0xFF)) }
        }
    }

    /// One JSON line (as rendered for line sessions, ending in CR LF) as one text frame:
    /// the head, then the object without its line end.
    public static func textFrame(ofLine line: [UInt8]) -> [UInt8] {
        var end = line.count
        if end > 0 && line[end - 1] == 0x0a { end -= 1 }
        if end > 0 && line[end - 1] == 0x0d { end -= 1 }
        var out: [UInt8] = []
        out.reserveCapacity(end + 10)
        append(opcode: textOpcode, payloadLength: end, to: &out)
        out.append(contentsOf: line[0..<end])
        return out
    }
}

/// RFC 6455 §5.2 opcodes; the other values are reserved, and a frame carrying one is a protocol error.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0, text = 1, binary = 2, close = 8, ping = 9, pong = 10

    /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between a message's fragments.
    public var isControl: Bool {
        rawValue >= 8
    }
}

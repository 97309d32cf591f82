/// What `WebSocketFrameDecoder.next()` found in a client's frames.
public enum WebSocketInput: Sendable, Equatable {
    /// A whole text message, its fragments joined; valid UTF-8.
    case text([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close; `code` is nil when the close frame had no payload. The decoder is finished.
    case close(code: UInt16?, reason: String)
    /// The client broke the protocol: the server sends a close with this code and closes.
    /// The decoder is finished.
    case failure(WebSocketCloseCode)
}

import ChorusCrypto
import Foundation

/// The server's side of the opening handshake (RFC 6455 §4.2).
public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for an upgrade request, or why it is refused: 400
    /// for a request that is not a proper upgrade, 426 for another protocol version (the
    /// response then names version 13).
    public static func accept(_ head: HTTPRequestHead) -> Result<String, HTTPRefusal> {
        guard head.method == "GET", head.version == .http11 else {
            return .failure(HTTPRefusal(status: 400, reason: "a WebSocket upgrade is an HTTP/1.1 GET"))
        }
        guard head.hasToken("websocket", inHeader: "upgrade"), head.hasToken("upgrade", inHeader: "connection") else {
            return .failure(HTTPRefusal(status: 400, reason: "this address takes WebSocket upgrades only"))
        }
        guard head.headerValues("sec-websocket-version") == ["13"] else {
            return .failure(HTTPRefusal(status: 426, reason: "WebSocket version 13 only"))
        }
        guard let key = head.header("sec-websocket-key"), Data(base64Encoded: key)?.count == 16 else {
            return .failure(HTTPRefusal(status: 400, reason: "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        return .success(acceptValue(forKey: key))
    }

    public static func acceptValue(forKey key: String) -> String {
        Data(Digest.sha1(Array((key + guid).utf8))).base64EncodedString()
    }
}

import ChorusCrypto

/// The server's side of the WebSocket opening handshake (RFC 6455 §4.2).
public enum WebSocketHandshake {
    /// The one protocol version spoken; a 426 refusal must name it in a
    /// `Sec-WebSocket-Version` header (`refusalHeaders(for:)`).
    public static let version = "13"
    /// RFC 6455's fixed GUID, appended to the client's key before hashing.
    public static let keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Checks an upgrade request: GET over HTTP/1.1, an `Upgrade` holding the token
    /// websocket, a `Connection` holding upgrade, `Sec-WebSocket-Version: 13`, and one
    /// `Sec-WebSocket-Key` that is base64 of 16 bytes. On success, the value for
    /// `Sec-WebSocket-Accept`. A wrong or missing version is 426; anything else wrong is 400.
    /// The Origin check is the server's: it knows its own names.
    public static func accept(_ head: HTTPRequestHead) -> Result<String, HTTPRefusal> {
        guard head.method == "GET", head.version == .http11 else {
            return .failure(.badRequest("a WebSocket upgrade is a GET over HTTP/1.1"))
        }
        guard head.hasToken("websocket", inHeader: "upgrade") else { return .failure(.badRequest("no Upgrade: websocket")) }
        guard head.hasToken("upgrade", inHeader: "connection") else { return .failure(.badRequest("no Connection: upgrade")) }
        guard head.headerValues("sec-websocket-version") == [version] else {
            return .failure(HTTPRefusal(status: 426, reason: "WebSocket version 13 only"))
        }
        let keys = head.headers.filter { $0.name == "sec-websocket-key" }
        guard keys.count == 1, let key = keys.first?.value, Base64.decode(key)?.count == 16 else {
            return .failure(.badRequest("bad Sec-WebSocket-Key"))
        }
        return .success(acceptValue(forKey: key))
    }

    /// base64(SHA-1(key + the GUID)), RFC 6455 §4.2.2.
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(Digest.sha1(Array((key + keyGUID).utf8)))
    }

    /// The headers a refusal from `accept` must carry besides the usual ones: a 426 names
    /// the version this server speaks (RFC 6455 §4.4).
    public static func refusalHeaders(for refusal: HTTPRefusal) -> [(name: String, value: String)] {
        refusal.status == 426 ? [(name: "Sec-WebSocket-Version", value: version)] : []
    }
}

import ChorusNet

/// One keep-alive HTTPS connection (ALPN `http/1.1`) reading a calendar feed, one request
/// at a time: `GET` its path, with `If-None-Match` when given an ETag, timed from the send
/// to the last byte of the response. Loop thread only.
final class FeedReader: ClientConnectionDelegate {
    /// What one response was, for the shard to count.
    struct Answer {
        let status: Int
        let bodyLength: Int
        let etag: String?
        let body: ArraySlice<UInt8>
    }

    private var connection: ClientConnection?
    private let host: String
    private var input: [UInt8] = []
    private var pending: ((Answer) -> Void)?
    var onClose: ((String) -> Void)?

    init(connector: ClientConnector) throws {
        host = "\(connector.address.host):\(connector.address.port)"
        connection = try connector.connect(delegate: self)
    }

    var isOpen: Bool { connection.map { !$0.isClosed } ?? false }

    /// Sends one GET; `answered` hears its response. One request in flight at a time.
    func get(_ path: String, ifNoneMatch etag: String?, answered: @escaping (Answer) -> Void) {
        precondition(pending == nil, "one request in flight per reader")
        pending = answered
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n"
        if let etag { head += "If-None-Match: \(etag)\r\n" }
        connection?.send(Array((head + "\r\n").utf8))
    }

    func close() {
        onClose = nil
        connection?.close(reason: "the run is over")
    }

    func clientConnectionDidOpen(_ connection: ClientConnection) {}

    func clientConnection(_ connection: ClientConnection, didReceive bytes: UnsafeRawBufferPointer) {
        input.append(contentsOf: bytes)
        guard let response = HTTPResponseScan.first(in: input), let answered = pending else { return }
        pending = nil
        let answer = Answer(status: response.status, bodyLength: response.bodyLength, etag: response.etag,
                            body: input[(response.length - response.bodyLength)..<response.length])
        input.removeFirst(response.length)
        answered(answer)
    }

    func clientConnectionDidClose(_ connection: ClientConnection, reason: String) {
        self.connection = nil
        let handler = onClose
        onClose = nil
        handler?(reason)
    }
}

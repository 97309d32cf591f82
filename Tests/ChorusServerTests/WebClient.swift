import ChorusClient
import Foundation

/// A test's HTTP and WebSocket client over real TLS: what a browser, a calendar app or a
/// probe sends, byte for byte, with the framing written out here so tests can also send
/// what no proper client would (unmasked frames, split heads).
final class WebClient {
    struct Response {
        let status: Int
        /// Lowercased names; the last value of a repeated header.
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Frame: Equatable {
        let opcode: UInt8
        let payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        var closeCode: UInt16? {
            opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    let connection: LineClient
    private var buffer: [UInt8] = []

    /// `protocols`: what ALPN offers (empty: nothing, so the server sniffs the first bytes).
    init(port: Int, protocols: [String] = ["http/1.1"]) throws {
        connection = try LineClient(port: port, trust: .insecure, applicationProtocols: protocols)
    }

    var applicationProtocol: String? { connection.applicationProtocol }

    func send(_ bytes: [UInt8]) throws { try connection.sendRaw(bytes) }
    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads until `count` bytes are buffered; false when the server closed first.
    private func fill(_ count: Int, timeout: Double) throws -> Bool {
        while buffer.count < count {
            guard let bytes = try connection.readBytes(timeout: timeout) else { return false }
            buffer += bytes
        }
        return true
    }

    private func take(_ count: Int) -> [UInt8] {
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return taken
    }

    /// Whether the server closed the connection (what is left of its bytes is read first).
    func isClosedByServer(timeout: Double = 10) throws -> Bool {
        while true {
            guard let bytes = try connection.readBytes(timeout: timeout) else { return true }
            buffer += bytes
        }
    }

    // MARK: HTTP

    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "", close: Bool = false) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if close { head += "Connection: close\r\n" }
        try send(head + "\r\n" + body)
        return try readResponse(headOnly: method == "HEAD")
    }

    /// One response: the head, then `Content-Length` bytes of body (none for HEAD, 1xx, 304).
    func readResponse(headOnly: Bool = false, timeout: Double = 10) throws -> Response {
        var end: Int?
        while end == nil {
            end = buffer.indices.dropLast(3).first { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }
            if end == nil {
                guard let bytes = try connection.readBytes(timeout: timeout) else { throw Failure("closed before a response") }
                buffer += bytes
            }
        }
        let head = String(decoding: take(end! + 4), as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure("bad status line \(head)") }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard !headOnly, status >= 200, status != 304, length > 0 else { return Response(status: status, headers: headers, body: []) }
        guard try fill(length, timeout: timeout) else { throw Failure("closed inside a body") }
        return Response(status: status, headers: headers, body: take(length))
    }

    // MARK: WebSocket

    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    /// The upgrade to a session at /ws; the 101 (or the refusal).
    func upgrade(origin: String? = nil, extra: [(String, String)] = []) throws -> Response {
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", Self.sampleKey),
                       ("Sec-WebSocket-Version", "13")]
        if let origin { headers.append(("Origin", origin)) }
        return try request("GET", "/ws", headers: headers + extra)
    }

    /// One frame as a client sends it: masked unless told otherwise.
    static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            out.append(mask | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        out += key
        out += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        return out
    }

    func sendText(_ text: String) throws { try send(Self.frame(opcode: 1, Array(text.utf8))) }

    /// The next frame from the server (never masked); nil when it closed first.
    func readFrame(timeout: Double = 10) throws -> Frame? {
        guard try fill(2, timeout: timeout) else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var headLength = 2
        if length == 126 {
            guard try fill(4, timeout: timeout) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            headLength = 4
        } else if length == 127 {
            guard try fill(10, timeout: timeout) else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            headLength = 10
        }
        guard try fill(headLength + length, timeout: timeout) else { return nil }
        _ = take(headLength)
        return Frame(opcode: opcode, payload: take(length))
    }

    /// The next text frame as JSON, skipping pings.
    func readJSON(timeout: Double = 10) throws -> [String: Any]? {
        while let frame = try readFrame(timeout: timeout) {
            guard frame.opcode == 1 else { continue }
            return try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any]
        }
        return nil
    }

    /// Sends a request line in a frame and returns its reply (events before it are skipped).
    func json(_ line: String, timeout: Double = 10) throws -> [String: Any] {
        try sendText(line)
        while let object = try readJSON(timeout: timeout) {
            if object["type"] as? String != "event" { return object }
        }
        throw Failure("closed before the reply to \(line)")
    }

    /// The next event frame.
    func event(timeout: Double = 10) throws -> [String: Any] {
        while let object = try readJSON(timeout: timeout) {
            if object["type"] as? String == "event" { return object }
        }
        throw Failure("closed before an event")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

import ChorusCrypto
import ChorusProtocol
import Foundation
import Glibc

/// The client's side of RFC 6455, as much as a benchmark session needs: the upgrade
/// request and a check of its 101, masked text frames out, and the server's unmasked
/// frames in. Like `LineSplitter`, a message that arrived whole is handed over as a view
/// into the read buffer; only a frame cut by a read boundary is copied.
struct WebSocketClientCodec {
    /// What one read asks of the session: control frames to send back, or why the
    /// WebSocket cannot go on.
    struct Feedback {
        var reply: [UInt8] = []
        var failure: String?
    }

    private enum Head {
        case incomplete
        case frame(headerLength: Int, payloadLength: Int)
        case invalid(String)
    }

    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The longest response head or frame taken from the server.
    private static let limit = 1 << 24

    /// `GET /ws` with the upgrade headers; sent before any frame.
    let upgradeRequest: [UInt8]
    private let expectedAccept: String
    private var upgraded = false
    private var responseHead: [UInt8] = []
    private var partial: [UInt8] = []
    private var maskSeed: UInt32
    private var wire: [UInt8] = []

    init(host: String, port: Int) {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
        expectedAccept = Self.acceptValue(forKey: key)
        maskSeed = UInt32.random(in: 1...UInt32.max, using: &generator)
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        upgradeRequest = Array(("GET /ws HTTP/1.1\r\nHost: \(hostHeader)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// `Sec-WebSocket-Accept` for `key` (RFC 6455 §4.2.2).
    static func acceptValue(forKey key: String) -> String {
        Data(Digest.sha1(Array((key + guid).utf8))).base64EncodedString()
    }

    // MARK: Out

    /// `payload` as one masked text frame; the view is valid until the next call.
    mutating func textFrame(_ payload: [UInt8]) -> [UInt8] {
        frame(opcode: WebSocketFrameHeader.textOpcode, payload)
    }

    private mutating func frame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        wire.removeAll(keepingCapacity: true)
        WebSocketFrameHeader.append(opcode: opcode, payloadLength: payload.count, to: &wire)
        wire[1] |= 0x80
        // A fresh key per frame from xorshift32: cheap, and unknown to the server.
        maskSeed ^= maskSeed << 13
        maskSeed ^= maskSeed >> 17
        maskSeed ^= maskSeed << 5
        let key = [UInt8(maskSeed >> 24), UInt8((maskSeed >> 16) & 0xFF), UInt8((maskSeed >> 8) & 0xFF), UInt8(maskSeed & 0xFF)]
        wire.append(contentsOf: key)
        let start = wire.count
        wire.append(contentsOf: payload)
        wire.withUnsafeMutableBufferPointer { out in
            for index in 0..<payload.count { out[start + index] ^= key[index & 3] }
        }
        return wire
    }

    // MARK: In

    /// Calls `each` for every whole text message in `bytes`, in order, after the 101;
    /// pings get pongs in the feedback, a close frame or a broken one a failure.
    @inline(__always)
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ each: (UnsafeRawBufferPointer) -> Void) -> Feedback {
        var feedback = Feedback()
        guard upgraded else {
            responseHead.append(contentsOf: bytes)
            guard let headEnd = Self.headEnd(responseHead) else {
                if responseHead.count > Self.limit { feedback.failure = "no end to the upgrade response" }
                return feedback
            }
            if let failure = checkUpgrade(String(decoding: responseHead[..<headEnd], as: UTF8.self)) {
                feedback.failure = failure
                return feedback
            }
            upgraded = true
            let rest = Array(responseHead[(headEnd + 4)...])
            responseHead = []
            rest.withUnsafeBytes { feedFrames($0, &feedback, each) }
            return feedback
        }
        feedFrames(bytes, &feedback, each)
        return feedback
    }

    /// Where the blank line ending a response head starts.
    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...(bytes.count - 4)).first { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A && bytes[$0 + 2] == 0x0D && bytes[$0 + 3] == 0x0A }
    }

    /// Nil when `head` is a 101 with the right `Sec-WebSocket-Accept`.
    private func checkUpgrade(_ head: String) -> String? {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let status = lines.first, status.hasPrefix("HTTP/1.1 101") else {
            return "upgrade refused: \(lines.first ?? "")"
        }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"),
                  line[..<colon].lowercased() == "sec-websocket-accept" else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return value == expectedAccept ? nil : "101 with a wrong Sec-WebSocket-Accept: \(value)"
        }
        return "101 without Sec-WebSocket-Accept"
    }

    @inline(__always)
    private mutating func feedFrames(_ bytes: UnsafeRawBufferPointer, _ feedback: inout Feedback,
                                     _ each: (UnsafeRawBufferPointer) -> Void) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let end = bytes.count
        var start = 0
        // A frame begun in an earlier read: complete it from the front of this one.
        while !partial.isEmpty {
            let head = partial.withUnsafeBytes { Self.parseHead($0) }
            switch head {
            case .invalid(let reason):
                feedback.failure = reason
                return
            case .incomplete:
                guard start < end else { return }
                partial.append(bytes[start])
                start += 1
            case .frame(let headerLength, let payloadLength):
                let total = headerLength + payloadLength
                let take = min(total - partial.count, end - start)
                partial.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: take))
                start += take
                guard partial.count == total else { return }
                let frame = partial
                partial.removeAll(keepingCapacity: true)
                frame.withUnsafeBytes { raw in
                    deliver(raw, headerLength: headerLength, &feedback, each)
                }
                if feedback.failure != nil { return }
            }
        }
        while start < end {
            let rest = UnsafeRawBufferPointer(start: base + start, count: end - start)
            switch Self.parseHead(rest) {
            case .invalid(let reason):
                feedback.failure = reason
                return
            case .frame(let headerLength, let payloadLength) where headerLength + payloadLength <= rest.count:
                deliver(UnsafeRawBufferPointer(start: rest.baseAddress, count: headerLength + payloadLength),
                        headerLength: headerLength, &feedback, each)
                if feedback.failure != nil { return }
                start += headerLength + payloadLength
            default:
                partial.append(contentsOf: rest)
                return
            }
        }
    }

    /// The head of the frame at the start of `bytes`: a server's frames are never masked.
    private static func parseHead(_ bytes: UnsafeRawBufferPointer) -> Head {
        guard bytes.count >= 2 else { return .incomplete }
        if bytes[1] & 0x80 != 0 { return .invalid("a masked frame from the server") }
        let short = Int(bytes[1] & 0x7F)
        switch short {
        case 126:
            guard bytes.count >= 4 else { return .incomplete }
            return .frame(headerLength: 4, payloadLength: Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return .incomplete }
            var length: UInt64 = 0
            for index in 2..<10 { length = length << 8 | UInt64(bytes[index]) }
            guard length <= UInt64(limit) else { return .invalid("a frame of \(length) bytes") }
            return .frame(headerLength: 10, payloadLength: Int(length))
        default:
            return .frame(headerLength: 2, payloadLength: short)
        }
    }

    @inline(__always)
    private mutating func deliver(_ frame: UnsafeRawBufferPointer, headerLength: Int, _ feedback: inout Feedback,
                                  _ each: (UnsafeRawBufferPointer) -> Void) {
        let payload = UnsafeRawBufferPointer(rebasing: frame[headerLength...])
        let finished = frame[0] & 0x80 != 0
        switch frame[0] & 0x0F {
        case WebSocketFrameHeader.textOpcode where finished:
            each(payload)
        case 0x9:
            feedback.reply += self.frame(opcode: 0xA, Array(payload))
        case 0xA:
            break
        case 0x8:
            let code = payload.count >= 2 ? String(Int(payload[0]) << 8 | Int(payload[1])) : "none"
            feedback.failure = "the server closed the WebSocket (code \(code)): \(String(decoding: payload.dropFirst(2), as: UTF8.self))"
        default:
            feedback.failure = "an unexpected frame (first byte \(frame[0]))"
        }
    }
}

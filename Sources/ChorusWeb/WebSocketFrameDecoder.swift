/// Turns a client's bytes into messages and control frames (RFC 6455 §5), enforcing what
/// a server must: every frame masked, no reserved bits, known opcodes, control frames
/// short and whole, fragments in order, text that is UTF-8, and a message no longer than
/// `maxMessageBytes` (decided from the frame head, before its payload is held). Bounded:
/// it holds at most one message so far plus one frame's head and payload.
public struct WebSocketFrameDecoder {
    public let maxMessageBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// The text message whose fragments are being joined, if one is.
    private var message: [UInt8]?
    private var failed: WebSocketCloseCode?
    private var failureReported = false

    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    public var bufferedCount: Int { buffer.count - start + (message?.count ?? 0) }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failed == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard failed == nil else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The next message or control frame; nil when more bytes are needed. After a failure
    /// (returned once) the decoder takes nothing more.
    public mutating func next() -> WebSocketInput? {
        while true {
            if let failed {
                if failureReported { return nil }
                failureReported = true
                return .failure(failed)
            }
            guard let frame = nextFrame() else { return nil }
            switch frame {
            case .failure(let code):
                failed = code
            case .frame(let opcode, let fin, let payload):
                if let input = take(opcode, fin: fin, payload) { return input }
            }
        }
    }

    private enum Frame {
        case frame(WebSocketOpcode, fin: Bool, [UInt8])
        case failure(WebSocketCloseCode)
    }

    /// One whole frame, unmasked; nil until its last byte has arrived.
    private mutating func nextFrame() -> Frame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start], second = buffer[start + 1]
        let fin = first & 0x80 != 0
        guard first & 0x70 == 0 else { return .failure(.protocolError) }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { return .failure(.protocolError) }
        guard second & 0x80 != 0 else { return .failure(.protocolError) }
        var length = UInt64(second & 0x7F)
        var headLength = 2
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = buffer[(start + 2)..<(start + 10)].reduce(0) { $0 << 8 | UInt64($1) }
            guard length >> 63 == 0 else { return .failure(.protocolError) }
            headLength = 10
        }
        if opcode.isControl {
            guard fin, length <= 125 else { return .failure(.protocolError) }
        } else {
            switch opcode {
            case .binary: return .failure(.unsupportedData)
            case .continuation: guard message != nil else { return .failure(.protocolError) }
            default: guard message == nil else { return .failure(.protocolError) }
            }
            // Decided from the head: a message past the limit is never held.
            guard length <= UInt64(maxMessageBytes - (message?.count ?? 0)) else { return .failure(.messageTooBig) }
        }
        let total = headLength + 4 + Int(length)
        guard available >= total else { return nil }
        let key = Array(buffer[(start + headLength)..<(start + headLength + 4)])
        var payload = Array(buffer[(start + headLength + 4)..<(start + total)])
        for index in payload.indices { payload[index] ^= key[index & 3] }
        start += total
        return .frame(opcode, fin: fin, payload)
    }

    /// What a frame adds: a control frame at once, a text message when its last fragment came.
    private mutating func take(_ opcode: WebSocketOpcode, fin: Bool, _ payload: [UInt8]) -> WebSocketInput? {
        switch opcode {
        case .ping: return .ping(payload)
        case .pong: return .pong(payload)
        case .close: return close(payload)
        case .binary: failed = .unsupportedData
        case .text, .continuation:
            var joined = (message ?? []) + payload
            if fin {
                message = nil
                guard UTF8Check.isValid(joined) else {
                    failed = .invalidPayload
                    return nil
                }
                return .text(joined)
            }
            // A fragment that already cannot become UTF-8 fails now, not when the message ends.
            guard UTF8Check.isValidPrefix(joined) else {
                failed = .invalidPayload
                return nil
            }
            message = joined
            joined = []
        }
        return nil
    }

    private mutating func close(_ payload: [UInt8]) -> WebSocketInput? {
        if payload.isEmpty { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else {
            failed = .protocolError
            return nil
        }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard WebSocketCloseCode.mayBeSent(code) else {
            failed = .protocolError
            return nil
        }
        let reason = Array(payload[2...])
        guard UTF8Check.isValid(reason) else {
            failed = .invalidPayload
            return nil
        }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}

/// UTF-8 as RFC 3629 has it: no overlong forms, no surrogates, nothing past U+10FFFF.
enum UTF8Check {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        scan(bytes) == .complete
    }

    /// Valid so far, a character possibly cut at the end.
    static func isValidPrefix(_ bytes: [UInt8]) -> Bool {
        scan(bytes) != .invalid
    }

    private enum Outcome { case complete, cut, invalid }

    private static func scan(_ bytes: [UInt8]) -> Outcome {
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return .invalid
            }
            for offset in 1..<length {
                guard index + offset < bytes.count else { return .cut }
                let byte = bytes[index + offset]
                let (min, max) = offset == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                guard byte >= min && byte <= max else { return .invalid }
            }
            index += length
        }
        return .complete
    }
}

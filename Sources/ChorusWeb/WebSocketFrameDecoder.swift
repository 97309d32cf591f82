/// Turns a client's WebSocket frames (RFC 6455 §5) into whole messages and control frames,
/// the server's side: every client frame must be masked. A text message's payload is
/// unmasked, UTF-8-checked and joined as it arrives, so the decoder holds at most
/// `maxMessageBytes` of message, the header and payload of one control frame (131 bytes),
/// and whatever one `append` brought, when `next()` is called after every append until nil.
/// Binary messages are refused (1003): the web door speaks text only.
public struct WebSocketFrameDecoder {
    /// A control frame's largest payload (RFC 6455 §5.5).
    public static let maxControlPayload = 125
    /// The largest frame header: 2 bytes, 8 of extended length, 4 of mask.
    public static let maxHeaderBytes = 14

    public let maxMessageBytes: Int

    private var buffer: [UInt8] = []
    /// The first byte of `buffer` not yet taken.
    private var start = 0
    /// The text message being joined, unmasked.
    private var message: [UInt8] = []
    private var inMessage = false
    private var utf8 = UTF8Validator()
    /// A data frame whose header is read and whose payload is still arriving.
    private var payload: PayloadInProgress?
    /// Set after a close or a failure: no more bytes are taken, nothing more comes out.
    public private(set) var isFinished = false

    private struct PayloadInProgress {
        var remaining: Int
        var fin: Bool
        var mask: (UInt8, UInt8, UInt8, UInt8)
        /// Payload bytes already unmasked, which picks the mask byte for the next one.
        var position = 0
    }

    private struct FrameHeader {
        var fin: Bool
        var opcode: WebSocketOpcode
        var length: Int
        var mask: (UInt8, UInt8, UInt8, UInt8)
        var size: Int
    }

    private enum HeaderRead {
        case needMore
        case failure(WebSocketCloseCode)
        case header(FrameHeader)
    }

    /// `maxMessageBytes` is the server's `--max-line`: the longest request a message may carry.
    public init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !isFinished else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard !isFinished else { return }
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Bytes held: frame bytes not yet taken, and the message joined so far.
    public var bufferedCount: Int {
        buffer.count - start + message.count
    }

    /// The next message or control frame, a failure, or nil when more bytes are needed.
    public mutating func next() -> WebSocketInput? {
        while !isFinished {
            if payload != nil {
                if let done = takePayload() { return done }
                if payload != nil { return nil }
                continue
            }
            switch readHeader() {
            case .needMore:
                return nil
            case .failure(let code):
                return fail(code)
            case .header(let header) where header.opcode.isControl:
                guard buffer.count - start >= header.size + header.length else { return nil }
                let body = unmasked(buffer[(start + header.size)..<(start + header.size + header.length)], mask: header.mask, from: 0)
                start += header.size + header.length
                return control(header.opcode, payload: body)
            case .header(let header):
                start += header.size
                if header.opcode == .text {
                    inMessage = true
                    utf8 = UTF8Validator()
                }
                payload = PayloadInProgress(remaining: header.length, fin: header.fin, mask: header.mask)
            }
        }
        return nil
    }

    /// Reads the frame header at `start` without taking it, deciding every refusal as soon
    /// as the bytes that decide it are in: most from the first two bytes, too big from the length.
    private func readHeader() -> HeaderRead {
        let available = buffer.count - start
        guard available >= 2 else { return .needMore }
        let first = buffer[start]
        let second = buffer[start + 1]
        let fin = first & 0x80 != 0
        // No extension is negotiated, so the RSV bits must be clear (§5.2).
        guard first & 0x70 == 0, let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { return .failure(.protocolError) }
        guard second & 0x80 != 0 else { return .failure(.protocolError) }  // a client frame must be masked (§5.1)
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            guard fin, shortLength <= Self.maxControlPayload else { return .failure(.protocolError) }
        } else {
            switch opcode {
            case .continuation: guard inMessage else { return .failure(.protocolError) }
            default: guard !inMessage else { return .failure(.protocolError) }
            }
            if opcode == .binary { return .failure(.unsupportedData) }
        }
        let lengthBytes = shortLength == 127 ? 8 : shortLength == 126 ? 2 : 0
        let size = 2 + lengthBytes + 4
        guard available >= 2 + lengthBytes else { return .needMore }
        var length = shortLength
        if lengthBytes > 0 {
            var wide: UInt64 = 0
            for index in 0..<lengthBytes { wide = wide << 8 | UInt64(buffer[start + 2 + index]) }
            // The 64-bit length's top bit must be clear (§5.2); anything that large is refused anyway.
            guard wide >> 63 == 0 else { return .failure(.protocolError) }
            guard wide <= UInt64(maxMessageBytes - message.count) else { return .failure(.messageTooBig) }
            length = Int(wide)
        } else if !opcode.isControl && length > maxMessageBytes - message.count {
            return .failure(.messageTooBig)
        }
        guard available >= size else { return .needMore }
        let maskAt = start + 2 + lengthBytes
        let mask = (buffer[maskAt], buffer[maskAt + 1], buffer[maskAt + 2], buffer[maskAt + 3])
        return .header(FrameHeader(fin: fin, opcode: opcode, length: length, mask: mask, size: size))
    }

    /// Unmasks what has arrived of the current data frame's payload into the message; the
    /// whole message once its last frame is in, a failure for bad UTF-8, else nil.
    private mutating func takePayload() -> WebSocketInput? {
        guard var frame = payload else { return nil }
        let count = min(frame.remaining, buffer.count - start)
        let chunk = unmasked(buffer[start..<(start + count)], mask: frame.mask, from: frame.position)
        start += count
        frame.remaining -= count
        frame.position += count
        for byte in chunk where !utf8.accept(byte) { return fail(.invalidPayload) }
        message.append(contentsOf: chunk)
        guard frame.remaining == 0 else {
            payload = frame
            return nil
        }
        payload = nil
        guard frame.fin else { return nil }
        guard utf8.isComplete else { return fail(.invalidPayload) }
        let whole = message
        message = []
        inMessage = false
        return .text(whole)
    }

    private mutating func control(_ opcode: WebSocketOpcode, payload body: [UInt8]) -> WebSocketInput {
        switch opcode {
        case .ping:
            return .ping(body)
        case .pong:
            return .pong(body)
        default:
            return close(body)
        }
    }

    /// A close frame's payload: empty, or a two-byte code a peer may send and a UTF-8 reason (§5.5.1).
    private mutating func close(_ body: [UInt8]) -> WebSocketInput {
        if body.isEmpty {
            finish()
            return .close(code: nil, reason: "")
        }
        guard body.count >= 2 else { return fail(.protocolError) }
        let code = UInt16(body[0]) << 8 | UInt16(body[1])
        guard WebSocketCloseCode.isAllowedOnWire(code) else { return fail(.protocolError) }
        let reason = body[2...]
        guard UTF8Validator.isValid(reason) else { return fail(.invalidPayload) }
        finish()
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    private func unmasked(_ bytes: ArraySlice<UInt8>, mask: (UInt8, UInt8, UInt8, UInt8), from position: Int) -> [UInt8] {
        let key = [mask.0, mask.1, mask.2, mask.3]
        var out = [UInt8](repeating: 0, count: bytes.count)
        var index = 0
        for byte in bytes {
            out[index] = byte ^ key[(position + index) & 3]
            index += 1
        }
        return out
    }

    private mutating func fail(_ code: WebSocketCloseCode) -> WebSocketInput {
        finish()
        return .failure(code)
    }

    private mutating func finish() {
        isFinished = true
        buffer = []
        start = 0
        message = []
        payload = nil
    }

    /// Drops taken bytes before an append: at once when all are taken, else once they are
    /// most of the buffer, so the copying stays linear in what arrives.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 65_536)
            start = 0
        } else if start >= 4096 && start * 2 >= buffer.count {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }
}

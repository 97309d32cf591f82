import ChorusFuzzSupport
import ChorusWeb

/// libFuzzer entry point: the bytes a browser could send on a WebSocket go through
/// `WebSocketFrameDecoder` the way a session feeds it (chunks of a size the first byte
/// picks; after each, inputs taken until nil, except every few chunks), and again in one
/// piece: both must give the same inputs. The second byte picks the message limit. Any
/// trap is a bug. Only in fuzz builds: the corpus test links all three fuzz targets.
#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrameDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    WebSocketFuzzInput.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#endif

enum WebSocketFuzzInput {
    /// Header and payload of the largest control frame, which waits whole in the buffer.
    static let controlFrameBytes = 2 + 4 + 125

    static func run(_ input: [UInt8]) {
        guard input.count >= 2 else { return }
        let recipe = Int(input[0])
        let maxMessage = Int(input[1]) * 4
        let stream = Array(input.dropFirst(2))
        let chunked = decode(stream, maxMessage: maxMessage, chunk: recipe % 61 + 1, busyEvery: recipe / 61 + 2)
        let whole = decode(stream, maxMessage: maxMessage, chunk: max(stream.count, 1), busyEvery: Int.max)
        precondition(chunked == whole, "the same bytes split differently decoded differently")
        for case .text(let text) in whole { checkRoundTrip(text, maxMessage: maxMessage) }
    }

    /// Everything `next()` returns for `stream` fed in chunks of `chunk` bytes, checking the
    /// decoder's promises after every step.
    static func decode(_ stream: [UInt8], maxMessage: Int, chunk: Int, busyEvery: Int) -> [WebSocketInput] {
        var decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessage)
        var outputs: [WebSocketInput] = []
        var offset = 0
        var round = 0
        var sinceDrain = 0
        while offset < stream.count {
            let end = min(stream.count, offset + chunk)
            decoder.append(stream[offset..<end])
            sinceDrain += end - offset
            offset = end
            round += 1
            precondition(decoder.bufferedCount <= maxMessage + controlFrameBytes + sinceDrain, "the decoder held more than its bound")
            if round % busyEvery != 0 {
                drain(&decoder, maxMessage: maxMessage, into: &outputs)
                sinceDrain = 0
                precondition(decoder.bufferedCount <= maxMessage + controlFrameBytes, "the decoder kept more than its bound")
            }
        }
        drain(&decoder, maxMessage: maxMessage, into: &outputs)
        return outputs
    }

    static func drain(_ decoder: inout WebSocketFrameDecoder, maxMessage: Int, into outputs: inout [WebSocketInput]) {
        while let output = decoder.next() {
            precondition(!outputs.contains(where: isFinal), "something came after a close or a failure")
            switch output {
            case .text(let text):
                precondition(text.count <= maxMessage, "a message over the limit came out")
                precondition(String(validating: text, as: UTF8.self) != nil, "a text message that is not UTF-8")
            case .ping(let payload), .pong(let payload):
                precondition(payload.count <= WebSocketFrameDecoder.maxControlPayload, "a control payload over 125 bytes")
            case .close(let code, let reason):
                precondition(code.map(WebSocketCloseCode.isAllowedOnWire) ?? reason.isEmpty, "a close code no peer may send")
                precondition(reason.utf8.count <= WebSocketFrameDecoder.maxControlPayload - 2, "a close reason too long")
            case .failure:
                break
            }
            if isFinal(output) {
                precondition(decoder.isFinished && decoder.bufferedCount == 0, "a finished decoder still holds bytes")
            }
            outputs.append(output)
        }
        if decoder.isFinished {
            decoder.append([0x81, 0x80, 0, 0, 0, 0])
            precondition(decoder.bufferedCount == 0 && decoder.next() == nil, "a finished decoder took more bytes")
        }
    }

    static func isFinal(_ input: WebSocketInput) -> Bool {
        switch input {
        case .close, .failure: true
        default: false
        }
    }

    /// A message that came out, sent back as the encoder writes it (masked, as a client
    /// would), decodes to itself.
    static func checkRoundTrip(_ text: [UInt8], maxMessage: Int) {
        var frame = WebSocketFrameEncoder.text(text)
        let headerLength = frame.count - text.count
        frame[1] |= 0x80
        let mask: [UInt8] = [0x5A, 0x01, 0xC3, 0x7E]
        for index in text.indices { frame[headerLength + index] ^= mask[index & 3] }
        frame.insert(contentsOf: mask, at: headerLength)
        var decoder = WebSocketFrameDecoder(maxMessageBytes: maxMessage)
        decoder.append(frame)
        precondition(decoder.next() == .text(text) && decoder.next() == nil, "an encoded message did not decode to itself")
    }
}

#if !FUZZING
/// Without libFuzzer (a normal build), replays files given as arguments.
@main
struct ReplayWebSocketFuzzInputs {
    static func main() {
        FuzzReplay.main(WebSocketFuzzInput.run)
    }
}
#endif

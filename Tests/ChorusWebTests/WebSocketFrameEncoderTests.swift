import ChorusWeb
import Testing

@Suite("WebSocketFrameEncoder")
struct WebSocketFrameEncoderTests {
    /// Headers take 2 bytes up to 125, 4 up to 65535 and 10 beyond, in network order, unmasked.
    @Test func headerLengths() {
        #expect(WebSocketFrameEncoder.header(opcode: .text, payloadLength: 0) == [0x81, 0])
        #expect(WebSocketFrameEncoder.header(opcode: .text, payloadLength: 125) == [0x81, 125])
        #expect(WebSocketFrameEncoder.header(opcode: .text, payloadLength: 126) == [0x81, 126, 0, 126])
        #expect(WebSocketFrameEncoder.header(opcode: .text, payloadLength: 65535) == [0x81, 126, 0xFF, 0xFF])
        #expect(WebSocketFrameEncoder.header(opcode: .text, payloadLength: 65536) == [0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(WebSocketFrameEncoder.header(opcode: .continuation, payloadLength: 3, fin: false) == [0x00, 3])
        var out: [UInt8] = [9]
        WebSocketFrameEncoder.appendHeader(opcode: .ping, payloadLength: 1, to: &out)
        #expect(out == [9, 0x89, 1])
    }

    /// A text frame is its header and the payload as is.
    @Test func textFrames() {
        for length in [0, 125, 126, 65535, 65536] {
            let payload = [UInt8](repeating: 0x41, count: length)
            let frame = WebSocketFrameEncoder.text(payload)
            let header = WebSocketFrameEncoder.header(opcode: .text, payloadLength: length)
            #expect(frame.count == header.count + length && Array(frame[..<header.count]) == header, "\(length)")
            #expect(Array(frame[header.count...]) == payload)
            #expect(decodeFrames(masked(frame), maxMessage: 70_000) == [.text(payload)], "\(length)")
        }
    }

    /// A close carries its code and its reason cut to fit 125 bytes between characters.
    @Test func closeFrames() {
        #expect(WebSocketFrameEncoder.close(.goingAway) == [0x88, 2, 0x03, 0xE9])
        #expect(WebSocketFrameEncoder.close(.messageTooBig, reason: "big") == [0x88, 5, 0x03, 0xF1] + bytes("big"))
        let long = String(repeating: "\u{E9}", count: 100)
        let frame = WebSocketFrameEncoder.close(.policyViolation, reason: long)
        #expect(frame[1] == 124)  // 2 + 61 two-byte characters: a 62nd would make 126
        #expect(decodeFrames(masked(frame)) == [.close(code: 1008, reason: String(repeating: "\u{E9}", count: 61))])
    }

    /// Pings and pongs carry their payload; one over 125 bytes is cut.
    @Test func pingAndPong() {
        #expect(WebSocketFrameEncoder.pong(bytes("hi")) == [0x8A, 2] + bytes("hi"))
        #expect(WebSocketFrameEncoder.ping([]) == [0x89, 0])
        #expect(WebSocketFrameEncoder.ping([UInt8](repeating: 1, count: 200)).count == 2 + 125)
    }

    /// A server frame as a client would send it: the mask bit set, a key, the payload masked.
    private func masked(_ frame: [UInt8]) -> [UInt8] {
        let lengthBytes = frame[1] == 127 ? 8 : frame[1] == 126 ? 2 : 0
        let headerLength = 2 + lengthBytes
        let key: [UInt8] = [1, 2, 3, 4]
        var out = Array(frame[..<headerLength])
        out[1] |= 0x80
        out += key
        for (index, byte) in frame[headerLength...].enumerated() { out.append(byte ^ key[index % 4]) }
        return out
    }
}

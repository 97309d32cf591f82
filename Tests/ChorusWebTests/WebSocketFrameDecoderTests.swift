import ChorusWeb
import Testing

@Suite("WebSocketFrameDecoder")
struct WebSocketFrameDecoderTests {
    /// A masked text frame comes out unmasked, whatever the key.
    @Test func maskedText() {
        #expect(decodeFrames(clientFrame(1, bytes("PING"))) == [.text(bytes("PING"))])
        #expect(decodeFrames(clientFrame(1, bytes("hello, world"), key: [0xFF, 0x00, 0x80, 0x01])) == [.text(bytes("hello, world"))])
        #expect(decodeFrames(clientFrame(1, [])) == [.text([])])
    }

    /// A client frame without a mask is a protocol error (RFC 6455 §5.1), known from its second byte.
    @Test func unmaskedFrame() {
        #expect(decodeFrames(Array(clientFrame(1, bytes("PING"), masked: false).prefix(2))) == [.failure(.protocolError)])
        #expect(decodeFrames(clientFrame(9, [], masked: false)) == [.failure(.protocolError)])
    }

    /// Any RSV bit and any reserved opcode is a protocol error.
    @Test func reservedBitsAndOpcodes() {
        for rsv: UInt8 in [0x40, 0x20, 0x10] {
            #expect(decodeFrames(clientFrame(1, bytes("x"), rsv: rsv)) == [.failure(.protocolError)], "\(rsv)")
        }
        for opcode: UInt8 in [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] {
            #expect(decodeFrames(clientFrame(opcode, [])) == [.failure(.protocolError)], "\(opcode)")
        }
    }

    /// A binary message is refused with 1003 at its first frame's first two bytes.
    @Test func binaryIsUnsupported() {
        #expect(decodeFrames([0x02, 0x85]) == [.failure(.unsupportedData)])
        #expect(decodeFrames(clientFrame(2, [1, 2, 3], fin: false) + clientFrame(0, [4])) == [.failure(.unsupportedData)])
    }

    /// Payloads of 125, 126, 65535 and 65536 bytes cross the 7-, 16- and 64-bit length forms.
    @Test func lengthForms() {
        for length in [0, 1, 125, 126, 127, 65535, 65536] {
            let payload = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            let frame = clientFrame(1, payload)
            #expect(decodeFrames(frame, maxMessage: 70_000) == [.text(payload)], "\(length)")
            #expect(decodeFrames(frame, maxMessage: 70_000, chunks: [1, 1, 1, 3, 5, 1000]) == [.text(payload)], "\(length)")
        }
    }

    /// A longer length form than needed is accepted; a 64-bit length with its top bit set is not.
    @Test func nonMinimalAndTopBitLengths() {
        #expect(decodeFrames(clientFrame(1, bytes("ab"), lengthBytes: 2) + clientFrame(1, bytes("cd"), lengthBytes: 8)) == [.text(bytes("ab")), .text(bytes("cd"))])
        let topBit: [UInt8] = [0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(decodeFrames(topBit) == [.failure(.protocolError)])
    }

    /// A message over the limit is 1009, decided from the header before any of its payload;
    /// one of exactly the limit passes.
    @Test func messageTooBig() {
        let exact = [UInt8](repeating: UInt8(ascii: "x"), count: 300)
        #expect(decodeFrames(clientFrame(1, exact), maxMessage: 300) == [.text(exact)])
        let header = Array(clientFrame(1, exact + [0x78]).prefix(8))
        #expect(decodeFrames(header, maxMessage: 300) == [.failure(.messageTooBig)])
        #expect(decodeFrames([0x81, 0xFF, 0, 0, 0, 1, 0, 0, 0, 0], maxMessage: 300) == [.failure(.messageTooBig)])
        #expect(decodeFrames(Array(clientFrame(1, [UInt8](repeating: 0x61, count: 20)).prefix(2)), maxMessage: 19) == [.failure(.messageTooBig)])
    }

    /// The fragments of a message count together towards the limit.
    @Test func fragmentsTooBig() {
        let part = [UInt8](repeating: UInt8(ascii: "y"), count: 100)
        #expect(decodeFrames(clientFrame(1, part, fin: false) + clientFrame(0, part), maxMessage: 200) == [.text(part + part)])
        let over = clientFrame(1, part, fin: false) + clientFrame(0, part, fin: false) + Array(clientFrame(0, [0x79]).prefix(2))
        #expect(decodeFrames(over, maxMessage: 200) == [.failure(.messageTooBig)])
    }

    /// Fragments are joined; control frames between them come out at once, before the message.
    @Test func fragmentsAndControlFrames() {
        let input = clientFrame(1, bytes("TASK "), fin: false) + clientFrame(9, bytes("p1")) + clientFrame(0, [], fin: false)
            + clientFrame(10, []) + clientFrame(0, bytes("ADD x"))
        let expected: [WebSocketInput] = [.ping(bytes("p1")), .pong([]), .text(bytes("TASK ADD x"))]
        #expect(decodeFrames(input) == expected)
        #expect(decodeFrames(input, chunks: everyByte(input.count)) == expected)
    }

    /// A continuation with no message begun, or a new message inside one, is a protocol error.
    @Test func fragmentOrder() {
        #expect(decodeFrames(clientFrame(0, bytes("x"))) == [.failure(.protocolError)])
        #expect(decodeFrames(clientFrame(1, bytes("a")) + clientFrame(0, bytes("b"))) == [.text(bytes("a")), .failure(.protocolError)])
        #expect(decodeFrames(clientFrame(1, bytes("a"), fin: false) + clientFrame(1, bytes("b"))) == [.failure(.protocolError)])
        #expect(decodeFrames(clientFrame(1, bytes("a"), fin: false) + clientFrame(2, bytes("b"))) == [.failure(.protocolError)])
    }

    /// Control frames are whole (FIN set) and at most 125 bytes.
    @Test func controlFrameRules() {
        let largest = [UInt8](repeating: 0x70, count: 125)
        #expect(decodeFrames(clientFrame(9, largest)) == [.ping(largest)])
        #expect(decodeFrames(clientFrame(9, largest + [0x70])) == [.failure(.protocolError)])
        #expect(decodeFrames(clientFrame(10, bytes("x"), fin: false)) == [.failure(.protocolError)])
        #expect(decodeFrames(clientFrame(8, [], fin: false)) == [.failure(.protocolError)])
    }

    /// A close: empty, or a code a peer may send and a UTF-8 reason; one byte is a protocol error.
    @Test func closeFrames() {
        #expect(decodeFrames(clientFrame(8, [])) == [.close(code: nil, reason: "")])
        #expect(decodeFrames(clientClose(1000, bytes("bye"))) == [.close(code: 1000, reason: "bye")])
        #expect(decodeFrames(clientClose(4000, bytes("sch\u{F6}n"))) == [.close(code: 4000, reason: "sch\u{F6}n")])
        #expect(decodeFrames(clientFrame(8, [0x03])) == [.failure(.protocolError)])
        #expect(decodeFrames(clientClose(1000, [0xFF])) == [.failure(.invalidPayload)])
        #expect(decodeFrames(clientClose(1000, [0x63, 0xC3])) == [.failure(.invalidPayload)])
    }

    /// Every code in the allowed ranges passes; every code that must not travel is 1002.
    @Test func closeCodes() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            #expect(decodeFrames(clientClose(code)) == [.close(code: code, reason: "")], "\(code)")
        }
        for code: UInt16 in [0, 1, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535] {
            #expect(decodeFrames(clientClose(code)) == [.failure(.protocolError)], "\(code)")
        }
    }

    /// After a close nothing more comes out and nothing is kept.
    @Test func closeIsFinal() {
        var decoder = WebSocketFrameDecoder(maxMessageBytes: 100)
        decoder.append(clientClose(1000) + clientFrame(1, bytes("late")))
        #expect(decoder.next() == .close(code: 1000, reason: ""))
        #expect(decoder.next() == nil)
        #expect(decoder.isFinished && decoder.bufferedCount == 0)
        decoder.append(clientFrame(1, bytes("later")))
        #expect(decoder.next() == nil && decoder.bufferedCount == 0)
    }

    /// After a failure nothing more comes out and nothing is kept.
    @Test func failureIsFinal() {
        var decoder = WebSocketFrameDecoder(maxMessageBytes: 100)
        decoder.append(clientFrame(1, bytes("a"), masked: false) + clientFrame(1, bytes("b")))
        #expect(decoder.next() == .failure(.protocolError))
        #expect(decoder.next() == nil)
        decoder.append(clientFrame(1, bytes("c")))
        #expect(decoder.next() == nil && decoder.bufferedCount == 0)
    }

    /// A character split across fragments is fine; invalid UTF-8 is 1007 at its first bad
    /// byte, before the message ends; a message ending mid-character is 1007 too.
    @Test func utf8AcrossFragments() {
        let split = clientFrame(1, [0x63, 0x61, 0x66, 0xC3], fin: false) + clientFrame(0, [0xA9])
        #expect(decodeFrames(split) == [.text(bytes("caf\u{E9}"))])
        let fourBytes = Array("\u{1F9F9}".utf8)
        let emoji = clientFrame(1, [fourBytes[0]], fin: false) + clientFrame(0, [fourBytes[1], fourBytes[2]], fin: false) + clientFrame(0, [fourBytes[3]])
        #expect(decodeFrames(emoji, chunks: everyByte(emoji.count)) == [.text(fourBytes)])
        #expect(decodeFrames(clientFrame(1, [0x61, 0xFF], fin: false)) == [.failure(.invalidPayload)])
        #expect(decodeFrames(clientFrame(1, [0x61, 0xC3])) == [.failure(.invalidPayload)])
        #expect(decodeFrames(clientFrame(1, [0xC3], fin: false) + clientFrame(0, [0x41])) == [.failure(.invalidPayload)])
    }

    /// Overlongs, surrogates and code points past U+10FFFF are not UTF-8.
    @Test func invalidSequences() {
        for bad: [UInt8] in [[0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x80]] {
            #expect(decodeFrames(clientFrame(1, bad)) == [.failure(.invalidPayload)], "\(bad)")
        }
    }

    /// However a mixed stream is cut, the same inputs come out.
    @Test func everySplitGivesTheSameInputs() {
        let input = clientFrame(1, bytes("one")) + clientFrame(1, bytes("tw"), fin: false) + clientFrame(9, bytes("?"))
            + clientFrame(0, bytes("o"), lengthBytes: 8) + clientFrame(1, [UInt8](repeating: 0x7A, count: 130)) + clientClose(1001, bytes("away"))
        let whole = decodeFrames(input)
        #expect(whole.count == 5)
        for cut in 0...input.count {
            #expect(decodeFrames(input, chunks: [cut]) == whole, "cut at \(cut)")
        }
        #expect(decodeFrames(input, chunks: everyByte(input.count)) == whole)
    }

    /// A message's payload is unmasked into the message as it arrives: the decoder holds the
    /// message so far and at most a control frame's bytes, never a second copy.
    @Test func bufferingIsBounded() {
        let limit = 10_000
        let payload = [UInt8](repeating: 0x6D, count: limit)
        let input = clientFrame(1, Array(payload[..<5000]), fin: false) + clientFrame(9, [UInt8](repeating: 1, count: 125)) + clientFrame(0, Array(payload[5000...]))
        var decoder = WebSocketFrameDecoder(maxMessageBytes: limit)
        var outputs: [WebSocketInput] = []
        for piece in pieces(input, Array(repeating: 97, count: input.count / 97 + 1)) {
            decoder.append(piece)
            #expect(decoder.bufferedCount <= limit + 131 + 97)
            while let output = decoder.next() { outputs.append(output) }
            #expect(decoder.bufferedCount <= limit + 131)
        }
        #expect(outputs == [.ping([UInt8](repeating: 1, count: 125)), .text(payload)])
        #expect(decoder.bufferedCount == 0)
    }
}

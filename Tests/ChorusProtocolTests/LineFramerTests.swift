import ChorusProtocol
import Testing

@Suite("LineFramer")
struct LineFramerTests {
    /// Lines ended by LF come out one per line, however the bytes are split.
    @Test func lfEndings() {
        FramerHarness.expectSameFrames(
            bytes("PING\nHELP ping\nQUIT\n"), maxLine: 64,
            expected: [line("PING"), line("HELP ping"), line("QUIT")])
    }

    /// Lines ended by CRLF come out without the CR, however the bytes are split.
    @Test func crlfEndings() {
        FramerHarness.expectSameFrames(
            bytes("PING\r\nHELP ping\r\nQUIT\r\n"), maxLine: 64,
            expected: [line("PING"), line("HELP ping"), line("QUIT")])
    }

    /// A client may mix LF and CRLF line endings on one connection.
    @Test func mixedEndings() {
        FramerHarness.expectSameFrames(
            bytes("A\r\nB\nC\r\nD\n"), maxLine: 64,
            expected: [line("A"), line("B"), line("C"), line("D")])
    }

    /// Empty lines and lone CRLFs are ignored rather than answered.
    @Test func emptyLinesSkipped() {
        FramerHarness.expectSameFrames(
            bytes("\n\r\n\nPING\n\r\n\r\n\nQUIT\r\n\n"), maxLine: 64,
            expected: [line("PING"), line("QUIT")])
    }

    /// Input made only of line endings produces no requests at all.
    @Test func onlyLineEndings() {
        FramerHarness.expectSameFrames(bytes("\r\n\n\r\n\n\n"), maxLine: 8, expected: [])
    }

    /// A CR in the middle of a line is kept (the parser then refuses it); only the CR right before the LF is dropped.
    @Test func carriageReturnInsideLineKept() {
        FramerHarness.expectSameFrames(
            bytes("a\rb\r\nc\r\r\n"), maxLine: 64,
            expected: [.line([0x61, 0x0d, 0x62]), .line([0x63, 0x0d])])
    }

    /// A line of exactly the maximum length is accepted, with either ending.
    @Test(arguments: ["\n", "\r\n"])
    func lineOfExactlyMaxLineAccepted(ending: String) {
        let text = String(repeating: "x", count: 32)
        FramerHarness.expectSameFrames(
            bytes(text + ending + "PING" + ending), maxLine: 32, expected: [line(text), line("PING")])
    }

    /// A line one byte too long gets one "too long" and the next line is handled normally.
    @Test(arguments: ["\n", "\r\n"])
    func lineOfMaxLinePlusOneResynchronises(ending: String) {
        let text = String(repeating: "y", count: 33)
        FramerHarness.expectSameFrames(
            bytes(text + ending + "PING" + ending), maxLine: 32, expected: [.tooLong, line("PING")])
    }

    /// The default limit is the contract's 8192 bytes: 8192 pass, 8193 are refused.
    @Test func defaultLimitIs8192() {
        let framer = LineFramer()
        #expect(framer.maxLine == 8192)
        let fits = String(repeating: "a", count: 8192)
        let overflows = String(repeating: "b", count: 8193)
        FramerHarness.expectSameFrames(
            bytes(fits + "\r\n" + overflows + "\r\nPING\r\n"), maxLine: 8192,
            expected: [line(fits), .tooLong, line("PING")], seeds: 1...4)
    }

    /// An endless line trickling in small pieces gets exactly one "too long", and the server never buffers much more than one line's worth.
    @Test(arguments: [1, 2, 3, 5, 8] as [UInt64])
    func overlongLineInSmallPiecesReportedOnceWithBoundedBuffer(seed: UInt64) {
        let maxLine = 64
        let input = bytes(String(repeating: "z", count: 20_000) + "\r\nPING\r\n")
        let sizes = FramerHarness.randomSplits(input.count, seed: seed, largest: 7)
        // The harness records an issue if the buffer ever exceeds maxLine + 2 (+ the chunk).
        let frames = FramerHarness.frames(of: input, chunks: sizes, maxLine: maxLine)
        #expect(frames == [.tooLong, line("PING")])
    }

    /// The same endless line, checked every way (whole, byte by byte, random splits), still yields one "too long".
    @Test func overlongLineEveryWay() {
        FramerHarness.expectSameFrames(
            bytes(String(repeating: "q", count: 1_000) + "\nOK\n"), maxLine: 16,
            expected: [.tooLong, line("OK")])
    }

    /// A too-long line followed by a valid one in the same chunk: the valid one is not lost.
    @Test func longLineThenValidLineInOneChunk() {
        let input = bytes(String(repeating: "L", count: 100) + "\nPING 1\r\nPING 2\n")
        let frames = FramerHarness.frames(of: input, chunks: [input.count], maxLine: 16)
        #expect(frames == [.tooLong, line("PING 1"), line("PING 2")])
    }

    /// Two too-long lines in a row give two "too long" replies, one each.
    @Test func twoLongLinesTwoReports() {
        let long = String(repeating: "w", count: 40)
        FramerHarness.expectSameFrames(
            bytes(long + "\n" + long + "\r\nPING\n"), maxLine: 16,
            expected: [.tooLong, .tooLong, line("PING")])
    }

    /// A line cut off before its newline is held back until the newline arrives.
    @Test func unfinishedLineWaitsForNewline() {
        var framer = LineFramer(maxLine: 64)
        framer.append(bytes("PIN"))
        #expect(framer.next() == nil)
        #expect(framer.bufferedCount == 3)
        framer.append(bytes("G\r"))
        #expect(framer.next() == nil)
        framer.append(bytes("\nQU"))
        #expect(framer.next() == line("PING"))
        #expect(framer.next() == nil)
        #expect(framer.bufferedCount == 2)
    }

    /// An unfinished tail that has already outgrown the limit is reported before its newline arrives, and only once.
    @Test func unfinishedOverlongTailReportedEarly() {
        var framer = LineFramer(maxLine: 8)
        framer.append(bytes(String(repeating: "a", count: 9)))
        #expect(framer.next() == nil, "8 bytes plus room for a CR still fit")
        framer.append(bytes("a"))
        #expect(framer.next() == .tooLong)
        framer.append(bytes(String(repeating: "a", count: 50)))
        #expect(framer.next() == nil, "the rest of the same line is dropped silently")
        #expect(framer.bufferedCount <= 10)
        framer.append(bytes("aaa\nPING\n"))
        #expect(framer.next() == line("PING"))
        #expect(framer.next() == nil)
    }

    /// Appending through a raw buffer pointer (as the network layer does) frames the same as appending arrays.
    @Test func rawPointerAppendMatches() {
        let input = bytes("@t1 PING\r\n\r\n" + String(repeating: "r", count: 50) + "\nQUIT\n")
        let sizes = FramerHarness.randomSplits(input.count, seed: 42, largest: 5)
        let viaArrays = FramerHarness.frames(of: input, chunks: sizes, maxLine: 16)
        let viaPointers = FramerHarness.frames(of: input, chunks: sizes, maxLine: 16, rawPointers: true)
        #expect(viaArrays == [line("@t1 PING"), .tooLong, line("QUIT")])
        #expect(viaPointers == viaArrays)
    }

    /// UTF-8 text split in the middle of a character is reassembled intact.
    @Test func multibyteCharactersSurviveSplits() {
        FramerHarness.expectSameFrames(
            bytes("SAY 1 Café ☕ 👩‍👩‍👧\r\nPING\n"), maxLine: 64,
            expected: [line("SAY 1 Café ☕ 👩‍👩‍👧"), line("PING")])
    }

    /// Random mixes of text, CR and LF frame the same way whole, byte by byte and in random splits, and match the contract's rules.
    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func randomInputsAgreeWithModel(seed: UInt64) {
        var generator = SeededGenerator(seed: seed &* 7919)
        let alphabet: [UInt8] = Array("ab ".utf8) + [0x0d, 0x0d, 0x0a, 0x0a]
        for _ in 0..<10 {
            let length = Int.random(in: 0...300, using: &generator)
            let input = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let maxLine = Int.random(in: 1...12, using: &generator)
            let expected = FramerHarness.model(input, maxLine: maxLine)
            FramerHarness.expectSameFrames(input, maxLine: maxLine, expected: expected, seeds: seed...(seed + 2))
        }
    }

    /// 100,000 request lines arriving back to back all come out, in order, none lost or merged.
    @Test func hundredThousandLines() {
        let count = 100_000
        var input: [UInt8] = []
        input.reserveCapacity(count * 20)
        for index in 0..<count {
            input.append(contentsOf: "@t\(index) PING \(index)".utf8)
            input.append(contentsOf: index % 2 == 0 ? [0x0d, 0x0a] : [0x0a])
        }
        for sizes in [[input.count], FramerHarness.randomSplits(input.count, seed: 7, largest: 4096)] {
            var framer = LineFramer()
            var seen = 0
            var mismatches = 0
            var offset = 0
            for size in sizes {
                framer.append(input[offset..<(offset + size)])
                offset += size
                while let frame = framer.next() {
                    if frame != line("@t\(seen) PING \(seen)") { mismatches += 1 }
                    seen += 1
                }
            }
            #expect(seen == count)
            #expect(mismatches == 0)
            #expect(framer.bufferedCount == 0)
        }
    }
}

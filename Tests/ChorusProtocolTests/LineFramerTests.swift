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
            bytes(text + ending + "PING" + ending), maxLine: 32, expected: [.tooLong(tag: nil), line("PING")])
    }

    /// The default limit is the contract's 8192 bytes: 8192 pass, 8193 are refused.
    @Test func defaultLimitIs8192() {
        let framer = LineFramer()
        #expect(framer.maxLine == 8192)
        let fits = String(repeating: "a", count: 8192)
        let overflows = String(repeating: "b", count: 8193)
        FramerHarness.expectSameFrames(
            bytes(fits + "\r\n" + overflows + "\r\nPING\r\n"), maxLine: 8192,
            expected: [line(fits), .tooLong(tag: nil), line("PING")], seeds: 1...4)
    }

    /// An endless line trickling in small pieces gets exactly one "too long", and the server never buffers much more than one line's worth.
    @Test(arguments: [1, 2, 3, 5, 8] as [UInt64])
    func overlongLineInSmallPiecesReportedOnceWithBoundedBuffer(seed: UInt64) {
        let maxLine = 64
        let input = bytes(String(repeating: "z", count: 20_000) + "\r\nPING\r\n")
        let sizes = FramerHarness.randomSplits(input.count, seed: seed, largest: 7)
        // The harness records an issue if it ever holds more than maxLine + 1 bytes of an unfinished line.
        let frames = FramerHarness.frames(of: input, chunks: sizes, maxLine: maxLine)
        #expect(frames == [.tooLong(tag: nil), line("PING")])
    }

    /// The same endless line, checked every way (whole, byte by byte, random splits), still yields one "too long".
    @Test func overlongLineEveryWay() {
        FramerHarness.expectSameFrames(
            bytes(String(repeating: "q", count: 1_000) + "\nOK\n"), maxLine: 16,
            expected: [.tooLong(tag: nil), line("OK")])
    }

    /// A too-long line followed by a valid one in the same chunk: the valid one is not lost.
    @Test func longLineThenValidLineInOneChunk() {
        let input = bytes(String(repeating: "L", count: 100) + "\nPING 1\r\nPING 2\n")
        let frames = FramerHarness.frames(of: input, chunks: [input.count], maxLine: 16)
        #expect(frames == [.tooLong(tag: nil), line("PING 1"), line("PING 2")])
    }

    /// Two too-long lines in a row give two "too long" replies, one each.
    @Test func twoLongLinesTwoReports() {
        let long = String(repeating: "w", count: 40)
        FramerHarness.expectSameFrames(
            bytes(long + "\n" + long + "\r\nPING\n"), maxLine: 16,
            expected: [.tooLong(tag: nil), .tooLong(tag: nil), line("PING")])
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
        #expect(framer.next() == .tooLong(tag: nil))
        framer.append(bytes(String(repeating: "a", count: 50)))
        #expect(framer.next() == nil, "the rest of the same line is dropped silently")
        #expect(framer.bufferedCount <= 10)
        framer.append(bytes("aaa\nPING\n"))
        #expect(framer.next() == line("PING"))
        #expect(framer.next() == nil)
    }

    /// An endless line fed the way the server feeds it (append, then take frames only
    /// while `hasCompleteLine`) stays within one line's worth, also after its `.tooLong`
    /// was taken; before, the rest of the line piled up until its newline.
    @Test func endlessLineStaysBoundedWhenTakenAsTheServerDoes() {
        var framer = LineFramer(maxLine: 1024)
        var frames: [LineFramer.Frame] = []
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var largest = 0
        for _ in 0..<2_000 {
            framer.append(piece)
            while framer.hasCompleteLine, let frame = framer.next() { frames.append(frame) }
            largest = max(largest, framer.bufferedCount)
        }
        #expect(frames == [.tooLong(tag: nil)])
        #expect(largest <= 1025)
        framer.append(bytes("xx\r\nPING\r\n"))
        #expect(framer.next() == line("PING"))
        #expect(framer.next() == nil)
    }

    /// With nobody taking frames (a session waiting on a command), bytes of an over-long
    /// line are still dropped as they arrive; the frames wait in order.
    @Test func overlongLineDroppedOnAppendWhileNothingIsTaken() {
        var framer = LineFramer(maxLine: 64)
        framer.append(bytes("PING 1\n"))
        for _ in 0..<1_000 { framer.append([UInt8](repeating: UInt8(ascii: "y"), count: 1000)) }
        #expect(framer.unfinishedCount == 0)
        #expect(framer.bufferedCount == 6)
        framer.append(bytes("yyy\nPING 2\n" + String(repeating: "z", count: 60)))
        #expect(framer.unfinishedCount == 60)
        #expect(framer.next() == line("PING 1"))
        #expect(framer.next() == .tooLong(tag: nil))
        #expect(framer.next() == line("PING 2"))
        #expect(framer.next() == nil)
    }

    /// An over-long line keeps the tag it began with, before and after its newline came,
    /// so its ERR 413 carries it; a tag cut off by the window, or malformed, is not kept.
    @Test func overlongLineKeepsItsTag() {
        let long = String(repeating: "x", count: 100)
        FramerHarness.expectSameFrames(
            bytes("@t6 REGISTER bob \(long)\n  @a.b:c-_9\t\(long)\r\n@bad!tag \(long)\nPING\n"), maxLine: 32,
            expected: [.tooLong(tag: "t6"), .tooLong(tag: "a.b:c-_9"), .tooLong(tag: nil), line("PING")])
        // Never ended: reported early, tag and all.
        var framer = LineFramer(maxLine: 16)
        framer.append(bytes("@t7 SAY 1 " + long))
        #expect(framer.next() == .tooLong(tag: "t7"))
        // A 64-byte tag fits the window of 128 bytes; a tag running past its end does not count.
        let tag64 = String(repeating: "T", count: 64)
        FramerHarness.expectSameFrames(
            bytes("@\(tag64) \(long)\(long)\(long)\n" + String(repeating: " ", count: 125) + "@late \(long)\(long)\n"),
            maxLine: 200,
            expected: [.tooLong(tag: tag64), .tooLong(tag: nil)])
    }

    /// Appending through a raw buffer pointer (as the network layer does) frames the same as appending arrays.
    @Test func rawPointerAppendMatches() {
        let input = bytes("@t1 PING\r\n\r\n" + String(repeating: "r", count: 50) + "\nQUIT\n")
        let sizes = FramerHarness.randomSplits(input.count, seed: 42, largest: 5)
        let viaArrays = FramerHarness.frames(of: input, chunks: sizes, maxLine: 16)
        let viaPointers = FramerHarness.frames(of: input, chunks: sizes, maxLine: 16, rawPointers: true)
        #expect(viaArrays == [line("@t1 PING"), .tooLong(tag: nil), line("QUIT")])
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
        let alphabet: [UInt8] = Array("ab @t ".utf8) + [0x0d, 0x0d, 0x0a, 0x0a]
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
                while framer.hasCompleteLine, let frame = framer.next() {
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

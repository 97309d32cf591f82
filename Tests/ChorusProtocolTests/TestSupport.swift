import ChorusProtocol
import Foundation
import Testing

/// A small, deterministic random number generator (SplitMix64), so a failing random
/// split can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The bytes of a string, for building wire input.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// A `.line` frame holding the UTF-8 of `text`.
func line(_ text: String) -> LineFramer.Frame {
    .line(Array(text.utf8))
}

/// Feeds a `LineFramer` the way a network would, in the spirit of swift-nio's
/// `ByteToMessageDecoderVerifier`: the same input as one chunk, one byte at a time and in
/// seeded random splits, draining every frame after each chunk.
enum FramerHarness {
    /// Chunk sizes that cover `count` bytes.
    static func whole(_ count: Int) -> [Int] {
        count == 0 ? [] : [count]
    }

    static func bytewise(_ count: Int) -> [Int] {
        Array(repeating: 1, count: count)
    }

    static func randomSplits(_ count: Int, seed: UInt64, largest: Int) -> [Int] {
        var generator = SeededGenerator(seed: seed)
        var sizes: [Int] = []
        var left = count
        while left > 0 {
            let size = min(left, Int.random(in: 1...max(1, largest), using: &generator))
            sizes.append(size)
            left -= size
        }
        return sizes
    }

    /// Runs one feeding and returns every frame produced. Frames are taken the way
    /// `Hub.processLines` takes them: only while `hasCompleteLine` says there is one. With
    /// `busyEvery`, every that many chunks nothing is taken (a session waiting on a
    /// command), and the framer must still hold no more than `maxLine + 1` bytes of an
    /// unfinished line.
    static func frames(
        of input: [UInt8], chunks: [Int], maxLine: Int, rawPointers: Bool = false, busyEvery: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [LineFramer.Frame] {
        var framer = LineFramer(maxLine: maxLine)
        var frames: [LineFramer.Frame] = []
        var offset = 0
        for (round, size) in chunks.enumerated() {
            let chunk = Array(input[offset..<(offset + size)])
            offset += size
            if rawPointers {
                chunk.withUnsafeBytes { framer.append($0) }
            } else {
                framer.append(chunk)
            }
            if framer.unfinishedCount > maxLine + 1 {
                Issue.record("held \(framer.unfinishedCount) bytes of an unfinished line (maxLine \(maxLine))",
                             sourceLocation: sourceLocation)
            }
            if let busyEvery, round % busyEvery == busyEvery - 1 { continue }
            take(from: &framer, into: &frames, sourceLocation: sourceLocation)
        }
        take(from: &framer, into: &frames, sourceLocation: sourceLocation)
        #expect(offset == input.count, "the harness fed every byte", sourceLocation: sourceLocation)
        #expect(framer.bufferedCount == framer.unfinishedCount, "no complete line left", sourceLocation: sourceLocation)
        return frames
    }

    /// Takes every frame `hasCompleteLine` announces, and checks `next()` agrees there is no more.
    static func take(from framer: inout LineFramer, into frames: inout [LineFramer.Frame],
                     sourceLocation: SourceLocation) {
        while framer.hasCompleteLine {
            guard let frame = framer.next() else {
                Issue.record("hasCompleteLine promised a frame next() did not give", sourceLocation: sourceLocation)
                return
            }
            frames.append(frame)
        }
        #expect(framer.next() == nil, "next() gave a frame hasCompleteLine did not announce", sourceLocation: sourceLocation)
    }

    /// Feeds `input` whole, byte by byte and in random splits for several seeds, and
    /// expects `expected` every time.
    static func expectSameFrames(
        _ input: [UInt8], maxLine: Int, expected: [LineFramer.Frame],
        seeds: ClosedRange<UInt64> = 1...8, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let whole = frames(of: input, chunks: whole(input.count), maxLine: maxLine, sourceLocation: sourceLocation)
        #expect(whole == expected, "fed as one chunk", sourceLocation: sourceLocation)
        let single = frames(of: input, chunks: bytewise(input.count), maxLine: maxLine, sourceLocation: sourceLocation)
        #expect(single == expected, "fed one byte at a time", sourceLocation: sourceLocation)
        for seed in seeds {
            let largest = [2, 3, 7, maxLine / 2, maxLine + 3, 64][Int(seed) % 6]
            let sizes = randomSplits(input.count, seed: seed, largest: largest)
            let split = frames(of: input, chunks: sizes, maxLine: maxLine, sourceLocation: sourceLocation)
            #expect(split == expected, "fed in random chunks (seed \(seed), largest \(largest))",
                    sourceLocation: sourceLocation)
            let busy = frames(of: input, chunks: sizes, maxLine: maxLine, busyEvery: Int(seed % 3) + 2,
                              sourceLocation: sourceLocation)
            #expect(busy == expected, "fed in random chunks, not always taken (seed \(seed))",
                    sourceLocation: sourceLocation)
        }
    }

    /// What the contract says the frames of `input` are, computed the simple way: split
    /// at LF, drop one CR before it, skip empty lines, refuse lines over `maxLine` (with
    /// the tag they begin with), and refuse an unfinished tail once it can no longer fit.
    static func model(_ input: [UInt8], maxLine: Int) -> [LineFramer.Frame] {
        var frames: [LineFramer.Frame] = []
        var current: [UInt8] = []
        for byte in input {
            guard byte == UInt8(ascii: "\n") else {
                current.append(byte)
                continue
            }
            if current.last == UInt8(ascii: "\r") { current.removeLast() }
            if current.count > maxLine {
                frames.append(.tooLong(tag: modelTag(current, maxLine: maxLine)))
            } else if !current.isEmpty {
                frames.append(.line(current))
            }
            current = []
        }
        if current.count > maxLine + 1 { frames.append(.tooLong(tag: modelTag(current, maxLine: maxLine))) }
        return frames
    }

    /// The tag of an over-long line: after any blanks, `@` and 1-64 tag bytes, ended by a
    /// blank within the framer's window of first bytes (128, or `maxLine + 2` if less).
    static func modelTag(_ line: [UInt8], maxLine: Int) -> String? {
        let head = line.prefix(min(128, maxLine + 2))
        let blanks: Set<UInt8> = [0x20, 0x09]
        guard let at = head.firstIndex(where: { !blanks.contains($0) }), head[at] == UInt8(ascii: "@") else { return nil }
        guard let end = head[(at + 1)...].firstIndex(where: { blanks.contains($0) }) else { return nil }
        let name = head[(at + 1)..<end]
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-".utf8)
        guard (1...64).contains(name.count), name.allSatisfy(allowed.contains) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}

/// Splits rendered output into its lines, each without its CRLF, and checks that every
/// line ended with CRLF and that no CR or LF hides inside a line.
func wireLines(_ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
    var lines: [String] = []
    var current: [UInt8] = []
    var index = 0
    while index < output.count {
        let byte = output[index]
        if byte == 0x0d, index + 1 < output.count, output[index + 1] == 0x0a {
            lines.append(String(decoding: current, as: UTF8.self))
            current = []
            index += 2
            continue
        }
        if byte == 0x0d || byte == 0x0a {
            Issue.record("bare \(byte == 0x0d ? "CR" : "LF") inside a line", sourceLocation: sourceLocation)
        }
        current.append(byte)
        index += 1
    }
    if !current.isEmpty {
        Issue.record("output does not end with CRLF", sourceLocation: sourceLocation)
    }
    return lines
}

/// Parses one JSON-mode line (CRLF included) with Foundation, as a bot would.
func parseJSONLine(_ output: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    #expect(output.suffix(2) == [0x0d, 0x0a], "a JSON line ends with CRLF", sourceLocation: sourceLocation)
    let body = Data(output.dropLast(2))
    let object = try JSONSerialization.jsonObject(with: body, options: [])
    return try #require(object as? [String: Any], "a JSON line is an object", sourceLocation: sourceLocation)
}

/// The keys of a JSON object line in the order they were written, read with a tiny
/// scanner (Foundation's dictionaries forget order).
func topLevelKeys(_ json: String) -> [String] {
    var keys: [String] = []
    var depth = 0
    var inString = false
    var escaped = false
    var current = ""
    var expectingKey = false
    for character in json {
        if inString {
            if escaped {
                escaped = false
                current.append(character)
            } else if character == "\\" {
                escaped = true
                current.append(character)
            } else if character == "\"" {
                inString = false
                if expectingKey && depth == 1 { keys.append(current) }
                expectingKey = false
            } else {
                current.append(character)
            }
            continue
        }
        switch character {
        case "\"":
            inString = true
            current = ""
        case "{", "[":
            depth += 1
            if character == "{" && depth == 1 { expectingKey = true }
        case "}", "]":
            depth -= 1
        case ",":
            if depth == 1 { expectingKey = true }
        case ":":
            expectingKey = false
        default:
            break
        }
    }
    return keys
}

/// A parsed command equals the expected one when it is of the same type with the same arguments.
func == <C: ParsedCommand>(lhs: any ParsedCommand, rhs: C) -> Bool {
    (lhs as? C) == rhs
}

import Foundation

/// Cuts a byte stream into request lines (CONTRACT §2).
///
/// Lines end with LF; a CR before the LF is dropped; empty lines are skipped. `append`
/// cuts lines as the bytes arrive, and they wait, in order, for `next()`. A line longer
/// than `maxLine` bytes becomes one `.tooLong` as soon as it is known to be too long,
/// even before its newline, and the rest of it is dropped as it arrives, so the
/// connection resynchronises at the next newline.
///
/// Of an unfinished line the framer holds at most `maxLine + 1` bytes (room for its CR),
/// whatever the peer sends and in whatever order the methods are called. Complete lines
/// wait until `next()` takes them: a caller that stops taking them stops reading too,
/// as the server does.
public struct LineFramer: Sendable {
    public enum Frame: Equatable, Sendable {
        case line([UInt8])
        /// A line over the limit, with the tag it began with when that was readable, so
        /// its `ERR 413` still carries it.
        case tooLong(tag: String?)
    }

    /// The first bytes of an over-long line searched for its tag: `@`, up to 64 tag
    /// bytes and the blank after them, with room for blanks before. Never more than the
    /// line is known to have when it is reported early (`maxLine + 2`), so the tag does
    /// not depend on how the bytes were split.
    public var tagWindow: Int { min(128, maxLine + 2) }

    public let maxLine: Int
    /// Complete lines not yet taken, `lines[start...]`, one after another, each ending in
    /// a newline (CR dropped, empty lines left out). One buffer rather than an array per
    /// line: a read of 16 KiB of one-byte lines would otherwise hold thousands of heap
    /// arrays, about forty times its size, for as long as the rate limit makes it wait.
    private var lines: [UInt8] = []
    private var start = 0
    private var linesWaiting = 0
    /// Over-long lines among them, each with its place in the order of frames.
    private var overlong: [(frame: Int, tag: String?)] = []
    /// Frames cut so far, and taken so far: the places `overlong` refers to.
    private var framesCut = 0
    private var framesTaken = 0
    /// The line still waiting for its newline; never more than `maxLine + 1` bytes.
    private var partial: [UInt8] = []
    /// Inside an over-long line already reported: its bytes are dropped up to its newline.
    private var discarding = false

    public init(maxLine: Int = 8192) {
        self.maxLine = maxLine
    }

    /// Bytes held: complete lines not yet taken (without their newlines), and the
    /// unfinished line.
    public var bufferedCount: Int { lines.count - start - linesWaiting + partial.count }

    /// Bytes held of the line that has no newline yet (at most `maxLine + 1`).
    public var unfinishedCount: Int { partial.count }

    /// Whether `next()` would return a frame without more input. Lets a caller ration
    /// lines without losing one.
    public var hasCompleteLine: Bool { linesWaiting > 0 || !overlong.isEmpty }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil {
            Array(bytes).withUnsafeBytes { append($0) }
        }
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var from = 0
        while from < bytes.count {
            guard let found = memchr(base + from, Int32(UInt8(ascii: "\n")), bytes.count - from) else {
                holdUnfinished(UnsafeRawBufferPointer(rebasing: bytes[from...]))
                return
            }
            let end = base.distance(to: UnsafeRawPointer(found))
            finishLine(UnsafeRawBufferPointer(rebasing: bytes[from..<end]))
            from = end + 1
        }
    }

    /// The next frame, or nil when more bytes are needed.
    public mutating func next() -> Frame? {
        if let first = overlong.first, first.frame == framesTaken {
            overlong.removeFirst()
            framesTaken += 1
            return .tooLong(tag: first.tag)
        }
        guard linesWaiting > 0 else { return nil }
        let end = lines.withUnsafeBytes { buffer -> Int in
            // Every waiting line ends in a newline, so there is one.
            let found = memchr(buffer.baseAddress! + start, Int32(UInt8(ascii: "\n")), buffer.count - start)!
            return buffer.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
        let line = Array(lines[start..<end])
        start = end + 1
        linesWaiting -= 1
        framesTaken += 1
        if start == lines.count {
            lines.removeAll(keepingCapacity: lines.capacity <= 16_384)
            start = 0
        } else if start > 4096 && start * 2 > lines.count {
            lines.removeSubrange(0..<start)
            start = 0
        }
        return .line(line)
    }

    /// `partial` plus `segment` is a whole line (its newline not included).
    private mutating func finishLine(_ segment: UnsafeRawBufferPointer) {
        if discarding {
            // The end of a line already reported.
            discarding = false
            return
        }
        var length = partial.count + segment.count
        if (segment.last ?? partial.last) == UInt8(ascii: "\r") { length -= 1 }
        if length > maxLine {
            overlong.append((framesCut, tag(of: segment)))
            framesCut += 1
        } else if length > 0 {
            lines.append(contentsOf: partial)
            lines.append(contentsOf: segment)
            if lines.last == UInt8(ascii: "\r") { lines.removeLast() }
            lines.append(UInt8(ascii: "\n"))
            linesWaiting += 1
            framesCut += 1
        }
        partial = []
    }

    /// Bytes after the last newline: kept while the line can still fit, else reported
    /// now and dropped with everything up to its newline.
    private mutating func holdUnfinished(_ rest: UnsafeRawBufferPointer) {
        if discarding { return }
        if partial.count + rest.count > maxLine + 1 {
            overlong.append((framesCut, tag(of: rest)))
            framesCut += 1
            partial = []
            discarding = true
        } else {
            partial.append(contentsOf: rest)
        }
    }

    /// The tag at the start of the over-long line made of `partial` and then `more`.
    private func tag(of more: UnsafeRawBufferPointer) -> String? {
        var head = Array(partial.prefix(tagWindow))
        head.append(contentsOf: more.prefix(tagWindow - head.count))
        return RequestParser.readableTag(head, cutShort: true)
    }
}

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
    /// The line still waiting for its newline; never more than `maxLine + 1` bytes.
    private var partial: [UInt8] = []
    /// Frames cut and not yet taken: `ready[taken...]`.
    private var ready: [Frame] = []
    private var taken = 0
    /// Bytes of the lines in `ready` not yet taken.
    private var readyBytes = 0
    /// Inside an over-long line already reported: its bytes are dropped up to its newline.
    private var discarding = false

    public init(maxLine: Int = 8192) {
        self.maxLine = maxLine
    }

    /// Bytes held: complete lines not yet taken, and the unfinished line.
    public var bufferedCount: Int { readyBytes + partial.count }

    /// Bytes held of the line that has no newline yet (at most `maxLine + 1`).
    public var unfinishedCount: Int { partial.count }

    /// Whether `next()` would return a frame without more input. Lets a caller ration
    /// lines without losing one.
    public var hasCompleteLine: Bool { taken < ready.count }

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
        guard taken < ready.count else { return nil }
        let frame = ready[taken]
        // The slot lets go of the line, so the caller holds its only copy.
        ready[taken] = .tooLong(tag: nil)
        taken += 1
        if case .line(let bytes) = frame { readyBytes -= bytes.count }
        if taken == ready.count {
            ready.removeAll(keepingCapacity: ready.capacity <= 64)
            taken = 0
        } else if taken >= 1024 && taken * 2 > ready.count {
            ready.removeSubrange(0..<taken)
            taken = 0
        }
        return frame
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
            ready.append(.tooLong(tag: tag(of: segment)))
            partial = []
        } else if length > 0 {
            var line = partial
            partial = []
            line.append(contentsOf: segment)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            readyBytes += line.count
            ready.append(.line(line))
        } else {
            partial = []
        }
    }

    /// Bytes after the last newline: kept while the line can still fit, else reported
    /// now and dropped with everything up to its newline.
    private mutating func holdUnfinished(_ rest: UnsafeRawBufferPointer) {
        if discarding { return }
        if partial.count + rest.count > maxLine + 1 {
            ready.append(.tooLong(tag: tag(of: rest)))
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

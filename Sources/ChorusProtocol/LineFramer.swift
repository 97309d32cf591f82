/// Cuts a byte stream into request lines (CONTRACT §2).
///
/// Lines end with LF; a CR before the LF is dropped. A line longer than `maxLine` bytes
/// yields one `.tooLong` and everything up to its end is discarded, so the connection
/// resynchronises at the next newline. The buffer never holds more than `maxLine + 1`
/// bytes of an unfinished line (room for its CR), whatever the peer sends.
public struct LineFramer: Sendable {
    public enum Frame: Equatable, Sendable {
        case line([UInt8])
        case tooLong
    }

    public let maxLine: Int
    private var buffer: [UInt8] = []
    /// Where the unread part of `buffer` starts; compacted lazily to avoid shifting per line.
    private var start = 0
    /// How far `buffer` has been searched for a newline, so a long partial line is scanned once.
    private var scanned = 0
    /// Inside an over-long line whose `.tooLong` was already reported.
    private var discarding = false

    public init(maxLine: Int = 8192) {
        self.maxLine = maxLine
    }

    /// Bytes buffered but not yet returned as lines.
    public var bufferedCount: Int { buffer.count - start }

    /// Whether `next()` would return something without more input (a line, possibly
    /// empty, or an over-long one). Lets a caller ration lines without losing one.
    public var hasCompleteLine: Bool {
        mutating get {
            if findNewline() != nil { return true }
            return buffer.count - start > maxLine + 1 && !discarding
        }
    }

    public mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame, or nil when more bytes are needed. Empty lines are skipped.
    public mutating func next() -> Frame? {
        while true {
            guard let newline = findNewline() else {
                return overflowIfNeeded()
            }
            let lineStart = start
            start = newline + 1
            scanned = start
            if discarding {
                discarding = false
                compactIfWorthIt()
                continue
            }
            var end = newline
            if end > lineStart && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            if end - lineStart > maxLine {
                compactIfWorthIt()
                return .tooLong
            }
            if end == lineStart {
                compactIfWorthIt()
                continue
            }
            let line = Array(buffer[lineStart..<end])
            compactIfWorthIt()
            return .line(line)
        }
    }

    private mutating func findNewline() -> Int? {
        var index = scanned
        let count = buffer.count
        while index < count {
            if buffer[index] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        scanned = count
        return nil
    }

    /// An unfinished line past the limit (plus room for CR) is reported once and dropped.
    private mutating func overflowIfNeeded() -> Frame? {
        let pending = buffer.count - start
        guard pending > maxLine + 1 else {
            compactIfWorthIt()
            return nil
        }
        buffer.removeAll(keepingCapacity: false)
        start = 0
        scanned = 0
        if discarding { return nil }
        discarding = true
        return .tooLong
    }

    private mutating func compactIfWorthIt() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 16_384)
            start = 0
            scanned = 0
        } else if start > 4096 && start * 2 > buffer.count {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
    }
}

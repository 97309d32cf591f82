import CLinux
import ChorusLocking
import Dispatch
import Foundation
import Synchronization

/// Lines for a descriptor (standard error, standard output), written by a thread of
/// their own so that logging can neither block nor kill the thread that logs.
///
/// A caller only appends to a bounded queue. The writer thread takes lines from it and
/// writes them with write(2); when it is stuck (a pipe nobody reads, a terminal that
/// froze) the queue fills and further lines are dropped. A line that write(2) refuses
/// (EPIPE once the reader left, EIO once the terminal closed) is dropped too. Either
/// way `droppedLines` counts it. SIGPIPE must be ignored for EPIPE to be an error rather
/// than death: `Sockets.ignoreSIGPIPE()`.
public final class LogWriter: Sendable {
    public static let standardError = LogWriter(fd: 2)
    public static let standardOutput = LogWriter(fd: 1)

    /// Bytes that may wait for the writer; past this, new lines are dropped.
    public static let queueLimit = 262_144

    private struct Queue {
        var lines: [[UInt8]] = []
        var bytes = 0
        /// Lines taken by the writer and not yet written or dropped.
        var writing = 0
        var writerStarted = false
    }

    private let fd: Int32
    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let dropped = Atomic<Int>(0)

    init(fd: Int32) {
        self.fd = fd
    }

    /// Lines lost so far: the queue was full, or the descriptor refused them.
    public var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// Queues one line (a newline is added); never waits for the descriptor.
    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        let (accepted, startWriter) = queue.withLock { queue -> (Bool, Bool) in
            guard queue.bytes + bytes.count <= Self.queueLimit else { return (false, false) }
            queue.lines.append(bytes)
            queue.bytes += bytes.count
            let start = !queue.writerStarted
            queue.writerStarted = true
            return (true, start)
        }
        guard accepted else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        if startWriter { startThread() }
        wake.signal()
    }

    /// Waits until every queued line is written or dropped, at most `timeout` seconds:
    /// before the process exits, so its last lines are not lost to a healthy descriptor.
    public func flush(timeout: Double) {
        let deadline = MonotonicTime.nanoseconds() + UInt64(max(0, timeout) * 1e9)
        while queue.withLock({ !$0.lines.isEmpty || $0.writing > 0 }) && MonotonicTime.nanoseconds() < deadline {
            usleep(1_000)
        }
    }

    private func startThread() {
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-log")
            while true {
                wake.wait()
                writeQueued()
            }
        }
        thread.name = "chorus-log"
        thread.start()
    }

    private func writeQueued() {
        let lines = queue.withLock { queue -> [[UInt8]] in
            let taken = queue.lines
            queue.lines = []
            queue.bytes = 0
            queue.writing = taken.count
            return taken
        }
        for line in lines {
            if !writeAll(line) { dropped.add(1, ordering: .relaxed) }
            queue.withLock { $0.writing -= 1 }
        }
    }

    /// Writes the whole line, or gives up at the first error but EINTR.
    private func writeAll(_ line: [UInt8]) -> Bool {
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count > 0 {
                    offset += count
                } else if count < 0 && clinux_errno() == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
    }
}

import ChorusLocking
import Foundation
import Glibc

/// A child's output, read on a background thread as it comes and kept behind a lock
/// (`Locked`, not `Mutex`: ThreadSanitizer cannot see Mutex's futex hand-over and reports
/// a race that is not there).
public final class OutputCapture: Sendable {
    private let bytes = Locked(Data())
    private let ended = DispatchSemaphore(value: 0)

    public init() {}

    public func append(_ data: Data) { bytes.withLock { $0.append(data) } }
    public var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }
    /// The bytes as written, for checks that invalid UTF-8 would hide from `text`.
    public var data: Data { bytes.withLock { $0 } }
    public var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// Reads `pipe` to its end on a thread of its own. Not `readabilityHandler`: that is
    /// a dispatch read source, and one cancelled while its descriptor closed crashed
    /// libdispatch's manager thread (`_dispatch_event_loop_drain`) in a CI run.
    public func drain(_ pipe: Pipe) {
        let thread = Thread { [self] in
            let handle = pipe.fileHandleForReading
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = Glibc.read(handle.fileDescriptor, &buffer, buffer.count)
                if count > 0 {
                    append(Data(buffer[0..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            ended.signal()
        }
        thread.start()
    }

    /// Waits until the pipe given to `drain` reached its end.
    public func waitForEnd(timeout: Double) -> Bool {
        guard ended.wait(timeout: .now() + timeout) == .success else { return false }
        ended.signal() // for any later waiter
        return true
    }

    /// Waits until a line contains every one of `parts`; that line, or nil after `timeout`.
    public func waitForLine(containing parts: [String], timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let line = lines.first(where: { line in parts.allSatisfy { line.contains($0) } }) { return line }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return nil
    }
}

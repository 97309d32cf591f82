import Foundation
import Glibc
import Testing

// Waits with a deadline. Swift Testing's `.timeLimit` cannot end a test blocked in a
// synchronous call, so one wait that never ends hangs the whole run; these turn a stuck
// child process or pipe into a failing test instead.

/// Something a test waited for did not happen in time: a child that had to be killed, a
/// pipe whose end did not come.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension Process {
    /// The program and its arguments, for messages.
    public var commandLine: String {
        ([executableURL?.path ?? "?"] + (arguments ?? [])).joined(separator: " ")
    }

    /// Waits up to `seconds` for the process to end; whether it ended by itself. If it
    /// did not, it is killed (`killAndWait`), so it is gone either way.
    public func waitUntilExit(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning && Date() < deadline { usleep(10_000) }
        if !isRunning { return true }
        killAndWait()
        return false
    }

    /// Sends SIGKILL to the process and its process group (Process starts each child as
    /// the leader of a group of its own), then waits up to `seconds` for Process to see
    /// the end; whether it did (`terminationStatus` may be read only then). SIGKILL, not
    /// SIGTERM: a child inherits the blocked signals of the thread that started it, so it
    /// may never see a SIGTERM. Process learns of the end when every holder of a socket
    /// the child inherited has closed it, so the group's other processes go too.
    @discardableResult
    public func killAndWait(within seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        if isRunning {
            Glibc.kill(-processIdentifier, SIGKILL)
            Glibc.kill(processIdentifier, SIGKILL)
        }
        while isRunning && Date() < deadline { usleep(10_000) }
        return !isRunning
    }

    /// `waitUntilExit(within:)`, throwing `WaitTimedOut` naming the command if the
    /// process had to be killed.
    public func requireExit(within seconds: Double) throws {
        guard waitUntilExit(within: seconds) else {
            throw WaitTimedOut("\(commandLine) did not end within \(Int(seconds)) s and was killed")
        }
    }

    /// `requireExit(within:)` for code that cannot throw (cleanup): records an issue instead.
    public func expectExit(within seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        if !waitUntilExit(within: seconds) {
            Issue.record("\(commandLine) did not end within \(Int(seconds)) s and was killed",
                         sourceLocation: sourceLocation)
        }
    }
}

extension FileHandle {
    /// The next bytes that can be read within `seconds`: empty at the end of the file, nil
    /// if none came in time.
    public func availableData(within seconds: Double) -> Data? {
        let deadline = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var watch = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            let ready = Glibc.poll(&watch, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            let count = Glibc.read(fileDescriptor, &chunk, chunk.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            return count > 0 ? Data(chunk[0..<count]) : Data()
        }
    }

    /// Reads to the end of the file for at most `seconds`: the bytes, and whether the end
    /// came. A pipe ends only once every holder of its write end has closed it, and a
    /// child's own children (or another test's child that inherited it) may hold it after
    /// the child ended.
    public func readToEnd(within seconds: Double) -> (data: Data, ended: Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        var data = Data()
        while let chunk = availableData(within: deadline.timeIntervalSinceNow) {
            if chunk.isEmpty { return (data, true) }
            data.append(chunk)
        }
        return (data, false)
    }
}

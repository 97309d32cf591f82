import ChorusCore
import ChorusNet
import ChorusStore

/// One client on one connection: its line framer, output mode and login. Owned by the
/// loop thread.
///
/// A session runs one command at a time: while a command waits for a password hash or
/// the database, the session stops reading, so replies come back in request order and a
/// client that pipelines a thousand lines gets them answered one by one.
final class Session {
    let connection: Connection
    var framer: LineFramer
    var mode = OutputMode.text
    var account: AccountRecord?
    /// The bot token this session logged in with, so revoking it can close the session.
    var tokenID: Int64?
    /// A command is waiting for a worker or the database.
    private(set) var busy = false
    /// The server is shutting down: no new commands are taken.
    var draining = false
    /// Monotonic time of the last request line (for the idle timeout).
    var lastActivity: UInt64
    var receivedFirstLine = false

    init(connection: Connection, maxLine: Int) {
        self.connection = connection
        self.framer = LineFramer(maxLine: maxLine)
        self.lastActivity = MonotonicTime.nanoseconds()
    }

    var id: UInt64 { connection.id }

    func send(_ reply: Reply, tag: String?) {
        connection.send(reply.rendered(mode: mode, tag: tag))
    }

    func send(_ event: RenderedEvent) {
        connection.send(event.bytes(for: mode))
    }

    func beginCommand() {
        busy = true
        connection.pauseReading()
    }

    func endCommand() {
        busy = false
        if !draining { connection.resumeReading() }
    }
}

@available(*, unavailable)
extension Session: Sendable {}

import ChorusCore
import ChorusNet
import ChorusStore

/// One client on one connection: its line framer, output mode and login. Owned by the
/// loop thread.
///
/// Replies come back in request order. A command that changes the session (a login)
/// runs alone: the session stops reading until it is answered (`busy`). Household
/// commands overlap, up to `maxInFlight` on the database at once, and their replies
/// queue in commit order (`pendingReplies`); a line that would overtake them waits in
/// `held` with reading paused.
final class Session {
    let connection: Connection
    var framer: LineFramer
    /// Events already due to this session are written in the mode they were sent in.
    var mode = OutputMode.text {
        willSet { pendingFanOut.writeAll() }
    }
    var account: SignedInAccount?
    /// The bot token this session logged in with, so revoking it can close the session.
    var tokenID: Int64?
    /// A command that changes the session (a login) is waiting for a worker or the
    /// database: nothing else runs until it is answered.
    private(set) var busy = false
    /// Household commands sent to the database and not yet answered. They may overlap:
    /// the database runs them in order and their replies come back in order, so a client
    /// that pipelines gets its writes committed together.
    var inFlight = 0
    static let maxInFlight = 64
    /// Replies of household commands, in commit order, waiting for their events to be
    /// written on the other loops (`Hub.releaseReplies`).
    var pendingReplies = FIFOQueue<PendingReply>()
    /// A line already read that must wait: a reply that would overtake in-flight
    /// commands, or a command over the in-flight cap.
    var held: PendingLine?
    /// The server is shutting down: no new commands are taken.
    var draining = false
    /// Monotonic time of the last request line (for the idle timeout).
    var lastActivity: UInt64
    var receivedFirstLine = false
    /// Over a connection limit: after the handshake it gets this `ERR 503` and is closed.
    var refusal: String?
    /// The address this session counts against for `--max-per-ip` (nil: not counted).
    var countedAddress: String?

    /// The loop's fan-out still to be copied this turn: anything else sent to this
    /// session writes it first, so nothing overtakes an event sent before it.
    private let pendingFanOut: PendingFanOut

    init(connection: Connection, maxLine: Int, pendingFanOut: PendingFanOut) {
        self.connection = connection
        self.pendingFanOut = pendingFanOut
        self.framer = LineFramer(maxLine: maxLine)
        self.lastActivity = MonotonicTime.nanoseconds()
    }

    var id: UInt64 { connection.id }

    func send(_ reply: Reply, tag: String?) {
        pendingFanOut.writeAll()
        connection.sendReply(reply.rendered(mode: mode, tag: tag))
    }

    func send(_ event: RenderedEvent) {
        pendingFanOut.writeAll()
        connection.send(event.bytes(for: mode))
    }

    func beginCommand() {
        busy = true
        updateReading()
    }

    func endCommand() {
        busy = false
        updateReading()
    }

    // MARK: Rate limit

    /// The command rate limit (`--rate`, `--burst`): a token bucket. Over it, lines wait
    /// unread, so a flooding client slows only itself.
    var tokens: Double = 0
    private var tokensUpdated: UInt64 = 0
    /// Out of tokens; a timer ends the wait.
    var rateLimited = false

    /// Takes one token if there is one, refilling at `rate` per second up to `burst`.
    func takeToken(rate: Double, burst: Double, now: UInt64) -> Bool {
        if tokensUpdated == 0 {
            tokens = burst
        } else {
            tokens = min(burst, tokens + Double(now - tokensUpdated) / 1e9 * rate)
        }
        tokensUpdated = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Seconds until one token is back.
    func secondsUntilToken(rate: Double) -> Double {
        max(0.001, (1 - tokens) / rate)
    }

    /// Nothing in flight and nothing held: the session is between commands.
    var isIdle: Bool { !busy && inFlight == 0 && held == nil }

    /// Reads only while nothing holds the session back.
    func updateReading() {
        if busy || rateLimited || draining || held != nil {
            connection.pauseReading()
        } else {
            connection.resumeReading()
        }
    }
}

@available(*, unavailable)
extension Session: Sendable {}

/// A line that has been read and understood, waiting for its turn.
enum PendingLine {
    /// An answer that needs no work (a syntax error, a 413).
    case reply(Reply, tag: String?)
    case request(Request)
}

/// A household command's reply that waits its turn (`Hub.releaseReplies`).
struct PendingReply {
    let reply: Reply
    let tag: String?
    let gate: ReplyGate?
    /// Notices the command set off for this session (a task added already overdue): sent
    /// right after the reply, so the session hears of the task before it hears it is late.
    let notices: [RenderedEvent]
}

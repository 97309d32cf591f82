import ChorusCore
import ChorusNet

/// One client on one connection: its line framer, output mode, login and input state.
/// Owned by the loop thread.
///
/// Replies come back in request order: `input` says when the next line may run, and
/// household commands' replies queue in commit order (`pendingReplies`).
///
/// `send` writes straight to the connection. The loop's pending fan-out may hold events
/// for this session that must go first, so whoever sends first flushes it
/// (`PendingFanOut.flush`): the hub does at each entry that writes to a session.
final class Session {
    let connection: Connection
    var framer: LineFramer
    /// The output mode. Events already due to this session are written in the mode they
    /// were sent in: the loop's pending fan-out is flushed before a line runs.
    var mode = OutputMode.text
    var account: SignedInAccount?
    /// The bot token this session logged in with, so revoking it can close the session.
    var tokenID: Int64?
    /// Reading, waiting for a reply, paused or closing (`SessionInput`).
    var input = SessionInput<PendingLine>()
    /// Replies of household commands, in commit order, waiting for their events to be
    /// written on the other loops (`Hub.releaseReplies`).
    var pendingReplies = FIFOQueue<PendingReply>()
    /// Monotonic time of the last request line (for the idle timeout).
    var lastActivity: UInt64
    /// For the handshake timeout (`SessionTable`).
    var receivedFirstLine = false
    /// Over a connection limit: after the handshake it gets this `ERR 503` and is closed.
    var refusal: ChorusError?
    /// The address this session counts against for `--max-per-ip` (nil: not counted).
    var countedAddress: String?
    /// How it reaches the server, for the sessions gauge (`SessionTable.setTransport`).
    var transport = SessionTransport.line
    /// The command this session's next reply answers, when it runs alone or is answered
    /// on the loop (`Hub.handle`): that reply counts for `chorus_commands_total`. Household
    /// replies carry their verb in `PendingReply` instead.
    var answering: CommandVerb?
    /// The server's counts, shared by all loops.
    let metrics: Metrics

    init(connection: Connection, maxLine: Int, metrics: Metrics) {
        self.connection = connection
        self.metrics = metrics
        self.framer = LineFramer(maxLine: maxLine)
        self.lastActivity = MonotonicTime.nanoseconds()
    }

    var id: UInt64 { connection.id }

    func send(_ reply: Reply, tag: String?) {
        if let verb = answering {
            answering = nil
            metrics.command(verb, code: reply.code)
        }
        connection.sendReply(reply.rendered(mode: mode, tag: tag))
    }

    func send(_ event: RenderedEvent) {
        connection.send(event.bytes(for: mode))
    }

    /// Carries out what `input` answered.
    func apply(_ action: SessionInput<PendingLine>.Action) {
        switch action {
        case .none: break
        case .pauseReading: connection.pauseReading()
        case .resumeReading: connection.resumeReading()
        }
    }

    /// Makes the socket read exactly when `input` takes lines.
    func updateReading() {
        apply(input.isReading ? .resumeReading : .pauseReading)
    }

    // MARK: Rate limit

    /// The command rate limit (`--rate`, `--burst`): a token bucket. Over it, lines wait
    /// unread, so a flooding client slows only itself.
    var tokens: Double = 0
    private var tokensUpdated: UInt64 = 0

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
    let verb: CommandVerb
    let reply: Reply
    let tag: String?
    let gate: ReplyGate?
    /// Notices the command set off for this session (a task added already overdue): sent
    /// right after the reply, so the session hears of the task before it hears it is late.
    let notices: [RenderedEvent]
}

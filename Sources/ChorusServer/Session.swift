import ChorusCore
import ChorusNet
import ChorusStore
import ChorusWeb

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
    /// What the connection speaks, decided once after the TLS handshake (CONTRACT §9):
    /// ALPN, or else the first bytes (`Hub+WebDoor`).
    enum Door {
        /// No ALPN: waiting up to 250 ms for the first bytes.
        case undecided
        /// The line protocol.
        case lines
        /// HTTP/1.1 requests (a feed, health, metrics, the web app's files).
        case http(HTTPExchange)
        /// A WebSocket session: requests and replies as frames.
        case webSocket(WebSocketLink)
    }

    let connection: Connection
    var framer: LineFramer
    /// The first bytes of a connection whose door is undecided (at most a request line's
    /// method and space).
    var sniffed: [UInt8] = []
    var door = Door.undecided {
        didSet {
            eventFormat = Self.format(mode: mode, door: door)
            let before = Self.transport(of: oldValue)
            if before != transport {
                before.map { metrics.sessionClosed(transport: $0) }
                transport.map { metrics.sessionOpened(transport: $0) }
            }
        }
    }
    /// The output mode. Events already due to this session are written in the mode they
    /// were sent in: the loop's pending fan-out is flushed before a line runs.
    var mode = OutputMode.text {
        didSet { eventFormat = Self.format(mode: mode, door: door) }
    }
    /// Which of an event's renderings this session takes; kept with `mode` and `door`, as
    /// fan-out asks it once per recipient.
    private(set) var eventFormat = EventFormat.text
    var account: SignedInAccount?
    /// The zone its person reads times in, when not the server's: read with the account
    /// at login, changed by `notify.tz` (`Hub.deliver`).
    var zone: ReaderZone?
    /// The token this session logged in with (AUTH), so revoking it can close the session
    /// and WHOAMI can name it; nil for a password login.
    var token: TokenRecord?
    /// Reading, waiting for a reply, paused or closing (`SessionInput`).
    var input = SessionInput<PendingLine>()
    /// Replies of household commands, in commit order, waiting for their events to be
    /// written on the other loops (`Hub.releaseReplies`).
    var pendingReplies = FIFOQueue<PendingReply>()
    /// The idle check that is current (`SessionTable.scheduleIdleCheck`).
    var idleCheck: UInt64 = 0
    /// Monotonic time of the last request line (for the idle timeout).
    var lastActivity: UInt64
    /// For the handshake timeout (`SessionTable`).
    var receivedFirstLine = false
    /// Over a connection limit: after the handshake it gets this `ERR 503` and is closed.
    var refusal: ChorusError?
    /// The address this session counts against for `--max-per-ip` (nil: not counted).
    var countedAddress: String?
    /// How it reaches the server, for the sessions gauge: nil until its door is decided,
    /// and for plain HTTP, which is not a session. The gauge moves with `door`.
    var transport: SessionTransport? { Self.transport(of: door) }
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

    private static func transport(of door: Door) -> SessionTransport? {
        switch door {
        case .lines: .line
        case .webSocket: .websocket
        case .undecided, .http: nil
        }
    }

    private static func format(mode: OutputMode, door: Door) -> EventFormat {
        if case .webSocket = door { return .webSocket }
        return mode == .json ? .json : .text
    }

    /// The WebSocket side of this session, if it is one.
    var webSocket: WebSocketLink? {
        if case .webSocket(let link) = door { return link }
        return nil
    }

    func send(_ reply: Reply, tag: String?) {
        if let verb = answering {
            answering = nil
            metrics.command(verb, code: reply.code)
        }
        let line = reply.rendered(mode: mode, tag: tag)
        connection.sendReply(webSocket == nil ? line : WebSocketFrameHeader.textFrame(ofLine: line))
    }

    /// In text mode, a reader in a zone of their own gets the event's times in it.
    func send(_ event: RenderedEvent) {
        if eventFormat == .text, let zone, event.marked != nil {
            connection.send(zone.textLine(of: event))
        } else {
            connection.send(event.bytes(for: eventFormat))
        }
    }

    /// Writes what is queued, then closes; a WebSocket session first says why in a close
    /// frame (`code`).
    func closeAfterFlush(limit: LimitClose? = nil, code: WebSocketCloseCode = .normal) {
        webSocket?.sendClose(code, on: connection)
        connection.closeAfterFlush(limit: limit)
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

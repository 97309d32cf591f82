import CLinux
import ChorusProtocol
import Glibc

/// `chorus` without a COMMAND: a session for a person at a terminal, or a script on a
/// pipe. Lines typed are sent; replies and live events are printed as they arrive. A
/// dropped connection is re-opened with backoff (1, 2, 4 ... 30 s), the session logs in
/// again and replays what it missed with `SYNC` (see `EventCursor` for why nothing is
/// shown twice or lost).
///
/// Design: the wire stays in the mode the person sees (text for people, JSON with
/// `--json` or after `MODE json`), so replies are printed exactly as the server wrote them.
/// Bookkeeping requests (login, the newest-id search, cursor syncs, replays, keep-alive
/// pings) are tagged `@chorus.NAME` and never printed. One thread: `poll` waits on
/// standard input, the server socket and the pipe the signal handler writes to
/// (`clinux_shutdown_signal_pipe`).
public final class InteractiveSession {
    /// Tags of the client's own requests start with this; replies carrying it are not shown.
    static let ownTagPrefix = "chorus."
    /// Well under the server's default idle timeout of 600 s.
    static let pingInterval = Duration.seconds(240)

    let connector: ServerConnector
    let console: Console
    let input: PersonInput
    /// How to log in again after a reconnect: from the flags, or what the person typed.
    var credentials: Credentials?
    /// The wire is in JSON mode (with `--json`, or after the person's `MODE json`).
    var jsonWire: Bool

    var link: SessionLink?
    /// A reconnection under way on its own thread (see `ReconnectAttempt`).
    var attempt: ReconnectAttempt?
    var cursor: EventCursor?
    var search: NewestEventSearch?
    /// Counts searches, so answers to an abandoned one are recognised.
    var searchNumber = 0
    /// Keys of live events shown while the newest-id search runs (see `startSearch`).
    var shownDuringSearch: [String] = []
    var cursorDirty = false
    var cursorSyncInFlight = false
    var replaying = false
    /// The person's lines while there is no usable connection.
    var outbox: [String] = []

    var backoff = ReconnectBackoff()
    var nextAttempt: ContinuousClock.Instant?
    /// Until the first login succeeds, problems end the program with status 2.
    var established = false
    /// The greeting is shown once, not after every reconnect.
    var greetingShown = false
    var inputEnded = false
    var quitRequested = false
    /// Set to end the loop with this status.
    var exitStatus: Int32?
    /// Some line the person sent was answered ERR: a script fed through a pipe then ends
    /// with status 1, as a one-shot command would (a person at a terminal ends with 0).
    var answeredWithError = false

    /// Where the cursor is kept between runs (nil: not at all).
    let seenEvents: SeenEventsFile?
    /// Shows, after login, what was said since the saved place (off with `--no-replay`).
    let replayAway: Bool
    /// At most this many missed events are shown at start; the rest are counted.
    static let awayLimit = 200
    /// The account logged in as, the key of the saved place with the server.
    var account: String?
    /// The start-up replay of what was missed while away, collected until its last page.
    var away: AwayReplay?
    /// What was last written to `seenEvents`, and when (written at most once a second).
    var savedLast: Int64?
    var savedAt = ContinuousClock.now
    var seenUnwritable = false
    /// Which rooms the terminal showed news of, to mark them read.
    var reads = ReadFollower()

    public init(connector: ServerConnector, credentials: Credentials?, json: Bool, console: Console, input: PersonInput,
                seenEvents: SeenEventsFile? = nil, replayAway: Bool = true) {
        self.connector = connector
        self.credentials = credentials
        self.jsonWire = json
        self.console = console
        self.input = input
        self.seenEvents = seenEvents
        self.replayAway = replayAway
    }

    public func run() throws(ClientFailure) -> Int32 {
        defer {
            input.finish()
            saveSeen(now: true)
        }
        try connect()
        // From here on Ctrl-C on a pipe session, SIGTERM and SIGHUP arrive as a byte on a
        // pipe, so the terminal is left as it was; before, they simply end the program.
        let signals = clinux_shutdown_signal_pipe()
        input.start()
        while exitStatus == nil {
            try drainServer()
            if let link, link.client.isClosed { try lost() }
            if exitStatus != nil { break }
            if finishedInput() { return scriptStatus }
            var descriptors: [pollfd] = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            if !inputEnded { descriptors.append(pollfd(fd: input.descriptor, events: Int16(POLLIN), revents: 0)) }
            if let link { descriptors.append(pollfd(fd: link.client.fileDescriptor, events: Int16(POLLIN), revents: 0)) }
            if let attempt { descriptors.append(pollfd(fd: attempt.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 1000)
            if ready < 0 && errno != EINTR { throw ClientFailure("poll failed: \(String(cString: strerror(errno)))") }
            for descriptor in descriptors where descriptor.revents != 0 {
                if descriptor.fd == signals { return signalStatus(signals) }
                if descriptor.fd == input.descriptor { try take(input.readAvailable()) }
                if let link, descriptor.fd == link.client.fileDescriptor, !link.client.receiveAvailable() {
                    try drainServer()
                    try lost()
                }
                if let attempt, descriptor.fd == attempt.descriptor { try finishAttempt() }
            }
            try tick()
        }
        return exitStatus ?? 0
    }

    /// How a session whose input ended with every line answered exits.
    private var scriptStatus: Int32 { answeredWithError && !input.isTerminal ? 1 : 0 }

    /// After the input ended: done once every line was sent and answered.
    private func finishedInput() -> Bool {
        guard inputEnded, established, outbox.isEmpty else { return false }
        guard let link else { return true } // disconnected with nothing left to send
        return link.ready && link.awaiting.isEmpty && streamSettled
    }

    /// No answer about the event stream is on its way, so the cursor (and the place saved
    /// from it) covers every event shown: a script's next run shows none of them again.
    private var streamSettled: Bool {
        search == nil && !replaying && (cursor == nil || (!cursorDirty && !cursorSyncInFlight))
    }

    /// 128 + the signal's number, as shells report a death by signal.
    private func signalStatus(_ descriptor: Int32) -> Int32 {
        var number: UInt8 = 0
        let count = read(descriptor, &number, 1)
        return 128 + (count == 1 ? Int32(number) : SIGINT)
    }

    /// Timers: the next reconnection attempt, and a keep-alive ping.
    private func tick() throws(ClientFailure) {
        if link == nil, attempt == nil, let nextAttempt, ContinuousClock.now >= nextAttempt {
            try connect()
        }
        if let link, link.ready, ContinuousClock.now - link.lastSent >= Self.pingInterval {
            link.send(own: "ping", "PING")
        }
        lookForReadRoomsIfDue()
        saveSeen(now: false)
    }

    // MARK: Connecting

    /// Opens a connection, sets the mode and logs in; lines are read by the loop.
    func connect() throws(ClientFailure) {
        nextAttempt = nil
        // The first connection may ask the person about the certificate, and its failure
        // ends the program: it is made here, waiting. Later ones are made on a thread of
        // their own, so keys and signals are still read while they wait on the network.
        if established, let started = ReconnectAttempt(connector: connector) {
            attempt = started
            return
        }
        try opened(Result { () throws(ClientFailure) in try connector.connect() })
    }

    /// The reconnection attempt is over.
    private func finishAttempt() throws(ClientFailure) {
        guard let attempt else { return }
        self.attempt = nil
        try opened(attempt.finish())
    }

    /// Sets the mode and logs in on a new connection; after a failure, plans the next try
    /// (before the first login everything is fatal; later only what another try cannot fix).
    private func opened(_ result: Result<LineClient, ClientFailure>) throws(ClientFailure) {
        let client: LineClient
        switch result {
        case .success(let made):
            client = made
        case .failure(let error):
            guard established, error.isTransient else { throw error }
            let delay = backoff.nextDelay()
            // The usual notice: why, in the client's words (never a library's error text).
            console.notice("\(connector.endpoint) is not answering (\(error.transientReason)); reconnecting in \(Int(delay)) s")
            nextAttempt = .now + .seconds(delay)
            return
        }
        let link = SessionLink(client: client)
        self.link = link
        if jsonWire { link.send(own: "mode", "MODE json") }
        if let credentials {
            link.send(own: "login", credentials.loginLine)
        } else {
            becomeReady()
        }
    }

    /// The session may carry the person's lines: after login, or at once without one.
    func becomeReady() {
        guard let link else { return }
        link.ready = true
        if established {
            console.notice("reconnected to \(connector.endpoint)")
        }
        established = true
        // From now on nobody is asked: the terminal belongs to the line editor.
        connector.askToTrust = nil
        backoff.reset()
        if credentials != nil {
            if cursor != nil { startReplay() } else { startFollowing() }
        }
        let queued = outbox
        outbox = []
        for line in queued { send(line) }
    }

    /// The connection is gone: say what was lost, then try again after a pause.
    func lost() throws(ClientFailure) {
        guard let link else { return }
        self.link = nil
        link.client.close()
        if quitRequested {
            exitStatus = 0
            return
        }
        guard established else { throw ClientFailure("\(connector.endpoint) closed the connection") }
        cursorSyncInFlight = false
        replaying = false
        if reads.inFlight { reads.lookFailed() }
        // Dropped before the newest-id search was over: without a cursor the reconnect
        // would search again and skip what was missed meanwhile, so replay from what the
        // search knows instead, with what was shown live so far as seen.
        if cursor == nil, let floor = search?.replayFloor {
            var provisional = EventCursor(last: floor)
            for key in shownDuringSearch { provisional.shownLive(key: key) }
            shownDuringSearch = []
            cursor = provisional
        }
        search = nil
        if !link.awaiting.isEmpty {
            let count = link.awaiting.count
            console.notice("the connection dropped before \(count) request\(count == 1 ? " was" : "s were") answered; "
                + "they may or may not have been carried out")
        }
        if inputEnded && outbox.isEmpty {
            exitStatus = link.awaiting.isEmpty ? scriptStatus : 2
            return
        }
        let delay = backoff.nextDelay()
        console.notice("lost the connection to \(connector.endpoint); reconnecting in \(Int(delay)) s")
        nextAttempt = .now + .seconds(delay)
    }

    // MARK: The person's lines

    private func take(_ items: [PersonInput.Item]) throws(ClientFailure) {
        for item in items {
            switch item {
            case .end:
                inputEnded = true
                // At a terminal Ctrl-D means "leave now"; a script waits for its replies.
                if input.isTerminal { exitStatus = 0 }
            case .line(let line):
                guard !line.allSatisfy({ $0 == " " || $0 == "\t" }) else { continue }
                input.remember(line)
                if ServerLine(line).tag?.hasPrefix(Self.ownTagPrefix) == true {
                    console.notice("tags starting with @\(Self.ownTagPrefix) are the client's own; use another tag")
                    continue
                }
                send(line)
            }
        }
    }

    /// Sends now, or keeps the line for when the session is back.
    private func send(_ line: String) {
        guard let link, link.ready else {
            if established && input.isTerminal { console.notice("not connected; the line will be sent after reconnecting") }
            outbox.append(line)
            return
        }
        link.send(person: line)
    }
}

/// What a session does with its input, as a state machine: each event the hub sees (a
/// line read, a command sent or answered, a token back, shutdown) is one call here, and
/// the call returns what to do next: with the socket (`Action`), or with a line
/// (`admit`'s `Admission`: run it, or hold it, and the hub then pauses reading). The hub
/// carries that out and keeps no flags of its own. Loop thread only; pure, so every transition has a unit test.
///
/// Replies keep request order. Household commands overlap, up to `maxInFlight` on the
/// database at once; a command that changes the session (a login) runs alone; any other
/// line waits (`holding`) until the commands before it have answered.
struct SessionInput<Line> {
    enum State {
        /// Taking lines as they come.
        case reading
        /// Over the command rate (`--rate`): a timer brings the next token.
        case waitingForToken
        /// A line already read waits for the replies of the commands before it.
        case holding(Line)
        /// A command that changes the session is running alone.
        case waitingForReply
        /// The server is shutting down: no new commands; replies still go out, that of a
        /// command running alone too (`awaitingReply`).
        case closing(awaitingReply: Bool)
    }

    /// What the socket should do now.
    enum Action: Equatable {
        case none
        case pauseReading
        case resumeReading
    }

    /// What to do with a line that was just read, or the held one.
    enum Admission: Equatable {
        /// Handle it now.
        case run
        /// It must wait: the machine holds it and reading pauses.
        case hold
    }

    /// Where the next line comes from.
    enum Next {
        /// The line that was held; it is the machine's no longer.
        case held(Line)
        /// Read one from the framer, if a whole one is there.
        case fresh
        /// Nothing is to be taken now.
        case stop
    }

    static var maxInFlight: Int { 64 }

    private(set) var state = State.reading
    /// Household commands sent to the database and not yet answered. They may overlap:
    /// the database runs them in order and their replies come back in order, so a client
    /// that pipelines gets its writes committed together.
    private(set) var inFlight = 0

    /// Whether the socket should be read: only while taking lines as they come.
    var isReading: Bool {
        if case .reading = state { return true }
        return false
    }

    /// Nothing running and nothing held: the session is between commands.
    var isIdle: Bool {
        switch state {
        case .reading, .waitingForToken: return inFlight == 0
        case .closing(let awaitingReply): return !awaitingReply && inFlight == 0
        case .holding, .waitingForReply: return false
        }
    }

    /// The next line to handle: the held one first, once it may go.
    mutating func next() -> Next {
        switch state {
        case .reading: return .fresh
        case .holding(let line):
            state = .reading
            return .held(line)
        case .waitingForToken, .waitingForReply, .closing: return .stop
        }
    }

    /// A line taken by `next` and understood. `overlaps`: it is a household command, which
    /// may run beside others already on the database.
    mutating func admit(_ line: Line, overlaps: Bool) -> Admission {
        guard inFlight > 0 && (!overlaps || inFlight >= Self.maxInFlight) else { return .run }
        state = .holding(line)
        return .hold
    }

    /// A household command went to the database.
    mutating func sent() {
        inFlight += 1
    }

    /// A household command's reply went out.
    mutating func answered() {
        inFlight -= 1
    }

    /// A command that changes the session started: nothing else runs until it answers.
    mutating func runAlone() -> Action {
        stopReading(until: .waitingForReply)
    }

    /// That command answered.
    mutating func answeredAlone() -> Action {
        switch state {
        case .waitingForReply:
            state = .reading
            return .resumeReading
        case .closing:
            state = .closing(awaitingReply: false)
            return .none
        case .reading, .waitingForToken, .holding:
            return .none
        }
    }

    /// The rate limit ran out of tokens.
    mutating func outOfTokens() -> Action {
        stopReading(until: .waitingForToken)
    }

    /// A token is back.
    mutating func tokenBack() -> Action {
        guard case .waitingForToken = state else { return .none }
        state = .reading
        return .resumeReading
    }

    private mutating func stopReading(until waiting: State) -> Action {
        guard case .reading = state else { return .none }
        state = waiting
        return .pauseReading
    }

    /// Shutdown: stop taking commands. A held line is dropped unanswered (it would never
    /// be taken); commands in flight still answer.
    mutating func close() -> Action {
        switch state {
        case .reading:
            state = .closing(awaitingReply: false)
            return .pauseReading
        case .waitingForReply, .closing(awaitingReply: true):
            state = .closing(awaitingReply: true)
        case .waitingForToken, .holding, .closing(awaitingReply: false):
            state = .closing(awaitingReply: false)
        }
        return .none
    }
}

@available(*, unavailable)
extension SessionInput: Sendable {}

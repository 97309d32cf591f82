import ChorusProtocol

/// One connection of an interactive session and what is in flight on it. The server
/// answers requests in order, so the person's lines wait here, oldest first, for their
/// final replies; the client's own requests carry `@chorus.` tags and are routed by tag.
final class SessionLink {
    /// A line the person sent, with what it meant (nil when it does not parse: the server
    /// will say why).
    struct SentLine {
        let text: String
        let request: Request?
    }

    let client: LineClient
    var awaiting: [SentLine] = []
    /// Body lines of the client's own requests so far, by tag.
    var bodies: [String: [ServerLine]] = [:]
    /// Each newest-id probe in flight, in order: which search sent it, and its `AFTER_ID`.
    var probes: [(search: Int, after: Int64)] = []
    var greeted = false
    /// Logged in, or nothing to log in with: the person's lines may go out.
    var ready = false
    private(set) var lastSent = ContinuousClock.now

    init(client: LineClient) {
        self.client = client
    }

    /// Sends one line; false when the connection is gone.
    @discardableResult
    func send(_ line: String) -> Bool {
        lastSent = .now
        do {
            try client.send(line)
            return true
        } catch {
            client.close()
            return false
        }
    }

    /// Sends the person's line and remembers it until its reply.
    @discardableResult
    func send(person line: String) -> Bool {
        let request: Request?
        if case .request(let parsed) = RequestParser.parse(line) { request = parsed } else { request = nil }
        awaiting.append(SentLine(text: line, request: request))
        return send(line)
    }

    /// Sends one of the client's own requests, tagged `@chorus.NAME`.
    @discardableResult
    func send(own name: String, _ line: String) -> Bool {
        send("@\(InteractiveSession.ownTagPrefix)\(name) \(line)")
    }
}

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
    /// Body lines of the client's own requests so far, by tag (`keepBody`).
    private(set) var bodies: [String: [ServerLine]] = [:]
    /// Bytes held in `bodies`, which `keepBody` bounds.
    private var bodyBytes = 0

    /// The client's own request names (`send(own:)`): a server's line under any other
    /// `@chorus.` tag is not kept.
    static let ownNames: Set<String> = ["cursor", "login", "mode", "ping", "probe", "read", "replay", "unread"]
    /// The most body held for the client's own replies: SYNC pages are about 256 KiB, so a
    /// server past this is not answering a request of ours, and is not let grow the client.
    static let maxBodyBytes = 8 * 1024 * 1024

    /// Keeps a body line of an own request, unless its name is none of ours or the bound is reached.
    func keepBody(_ line: ServerLine, for name: String) {
        guard Self.ownNames.contains(name), bodyBytes + line.raw.utf8.count <= Self.maxBodyBytes else { return }
        bodyBytes += line.raw.utf8.count
        bodies[name, default: []].append(line)
    }

    /// The body kept for an own request's final line, forgotten.
    func takeBody(for name: String) -> [ServerLine] {
        let body = bodies.removeValue(forKey: name) ?? []
        bodyBytes -= body.reduce(0) { $0 + $1.raw.utf8.count }
        return body
    }
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

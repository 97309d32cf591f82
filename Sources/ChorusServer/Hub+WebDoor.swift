import ChorusNet
import ChorusProtocol
import ChorusWeb
import Foundation

/// The web door (CONTRACT §9): which protocol a connection speaks, and what HTTP requests
/// get. The line protocol, HTTP and WebSocket share the port, the session table and its
/// limits; a WebSocket session is a line session in JSON mode with frames around it.
extension Hub {
    /// How long a connection without ALPN may take to show HTTP's first bytes before it
    /// is greeted as a line session.
    static let sniffWait = 0.25

    // MARK: Which door

    /// After the TLS handshake: ALPN decides, or else the first bytes within `sniffWait`.
    func openDoor(of session: Session) {
        switch session.connection.applicationProtocol {
        case "acme-tls/1":
            // An ACME validator (RFC 8737): the handshake with the challenge certificate
            // was the whole answer; it gets no session.
            session.connection.closeAfterFlush()
        case "http/1.1":
            enterHTTP(session, with: [])
        case "chorus":
            enterLines(session, with: [])
        default:
            let id = session.id
            loop.schedule(after: Self.sniffWait) { [unowned self] in
                guard let session = sessions[id], case .undecided = session.door, session.connection.isOpen else { return }
                let sniffed = session.sniffed
                session.sniffed = []
                enterLines(session, with: sniffed)
            }
        }
    }

    /// Bytes from a connection whose protocol is not decided yet: an HTTP request line
    /// makes it HTTP, anything else the line protocol.
    func sniff(_ session: Session, _ bytes: UnsafeRawBufferPointer) {
        session.sniffed.append(contentsOf: bytes)
        let verdict = session.sniffed.withUnsafeBytes { HTTPRequestParser.looksLikeRequestLine($0) }
        let sniffed = session.sniffed
        switch verdict {
        case .needMore: return
        case .http:
            session.sniffed = []
            enterHTTP(session, with: sniffed)
        case .notHTTP:
            session.sniffed = []
            enterLines(session, with: sniffed)
        }
    }

    /// The line protocol: the greeting (or the refusal of a session over a limit), then
    /// whatever the client already sent.
    private func enterLines(_ session: Session, with bytes: [UInt8]) {
        session.door = .lines
        // A refused session never logs in, so no event is due to it before this.
        if let refusal = session.refusal {
            session.send(.error(refusal), tag: nil)
            session.closeAfterFlush()
            return
        }
        // Sessions start in text mode, so the greeting is always a text line.
        var line: [UInt8] = []
        TextLine.append("* " + Self.greeting, to: &line)
        session.connection.send(line)
        sessions.scheduleIdleCheck(session, after: configuration.idleTimeout)
        guard !bytes.isEmpty else { return }
        bytes.withUnsafeBytes { session.framer.append($0) }
        processLines(of: session)
    }

    private func enterHTTP(_ session: Session, with bytes: [UInt8]) {
        let exchange = HTTPExchange()
        session.door = .http(exchange)
        if session.refusal != nil {
            respond(.text(503, "too many connections; try again later", headers: [.init("Retry-After", "10")]),
                    to: session, headOnly: false, close: true)
            return
        }
        sessions.scheduleIdleCheck(session, after: configuration.idleTimeout)
        guard !bytes.isEmpty else { return }
        exchange.parser.append(bytes)
        serveHTTP(session, exchange)
    }

    // MARK: HTTP

    /// Bytes on an HTTP connection.
    func receiveHTTP(_ session: Session, _ exchange: HTTPExchange, _ bytes: UnsafeRawBufferPointer) {
        exchange.parser.append(bytes)
        serveHTTP(session, exchange)
    }

    /// Answers complete requests in order until one is answered off the loop, the
    /// connection closes, or the bytes run out.
    func serveHTTP(_ session: Session, _ exchange: HTTPExchange) {
        while session.connection.isOpen && !exchange.answering, case .http = session.door {
            let now = MonotonicTime.nanoseconds()
            guard let parsed = exchange.held ?? exchange.parser.next() else { break }
            exchange.held = nil
            // Requests take tokens from the same bucket as lines; without one, the request
            // waits, and reading with it, until one is back.
            if case .request = parsed, !session.takeToken(rate: configuration.rate, burst: configuration.burst, now: now) {
                exchange.held = parsed
                waitForHTTPToken(session, exchange)
                return
            }
            session.receivedFirstLine = true
            session.lastActivity = now
            switch parsed {
            case .refusal(let refusal):
                Log.info("http refused", ["status": refusal.status, "reason": refusal.reason, "addr": session.connection.peerHost])
                respond(.text(refusal.status, refusal.reason), to: session, headOnly: false, close: true)
                return
            case .request(let head, _):
                route(head, from: session, exchange)
            }
        }
    }

    private func waitForHTTPToken(_ session: Session, _ exchange: HTTPExchange) {
        exchange.answering = true
        session.connection.pauseReading()
        let id = session.id
        loop.schedule(after: session.secondsUntilToken(rate: configuration.rate)) { [unowned self] in
            guard let session = sessions[id], session.connection.isOpen else { return }
            exchange.answering = false
            session.connection.resumeReading()
            serveHTTP(session, exchange)
        }
    }

    /// Sends `response`; with `close`, the connection ends after it.
    func respond(_ response: HTTPResponse, to session: Session, headOnly: Bool, close: Bool) {
        session.connection.sendReply(response.serialized(date: clock.now(), headOnly: headOnly, close: close))
        if close { session.connection.closeAfterFlush() }
    }

    /// The request's answer by path (CONTRACT §9's table).
    private func route(_ head: HTTPRequestHead, from session: Session, _ exchange: HTTPExchange) {
        let headOnly = head.method == "HEAD"
        let close = !head.keepAlive
        let reply: (HTTPResponse) -> Void = { [unowned self] response in
            respond(response, to: session, headOnly: headOnly, close: close)
        }
        if head.path == "/ws" {
            upgrade(head, session: session, exchange: exchange)
            return
        }
        if let secret = MailStopPath.secret(in: head.path) {
            switch head.method {
            case "GET", "HEAD":
                reply(MailStopPath.confirmation)
            case "POST":
                answerOffLoop(session, exchange) { [unowned self] finish in
                    stopMail(secret: String(secret)) { finish(MailStopPath.response(stopped: $0)) }
                } sent: { [unowned self] response in respond(response, to: session, headOnly: false, close: close) }
            default:
                reply(.text(405, "method not allowed", headers: [.init("Allow", "GET, HEAD, POST")]))
            }
            return
        }
        guard head.method == "GET" || head.method == "HEAD" else {
            reply(.text(405, "method not allowed", headers: [.init("Allow", "GET, HEAD")]))
            return
        }
        if let file = WebAppFiles.response(for: head.path, ifNoneMatch: head.headerValues("if-none-match")) {
            reply(file)
            return
        }
        switch head.path {
        case "/healthz":
            answerOffLoop(session, exchange) { [unowned self] finish in
                guard !sessions.refusesNew else { return finish(.text(503, "shutting down")) }
                isHealthy { healthy in
                    finish(healthy ? .text(200, "ok", headers: [.init("Cache-Control", "no-store")])
                                   : .text(503, "store unreachable", headers: [.init("Cache-Control", "no-store")]))
                }
            } sent: { [unowned self] response in respond(response, to: session, headOnly: headOnly, close: close) }
        case "/metrics":
            guard mayReadMetrics(from: session.connection.peerHost) else {
                reply(.text(404, "not found"))
                return
            }
            reply(HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                               body: Array(metricsText().utf8), headers: [.init("Cache-Control", "no-store")]))
        default:
            if let secret = CalendarFeedPath.secret(in: head.path) {
                let tags = head.headerValues("if-none-match")
                answerOffLoop(session, exchange) { [unowned self] finish in
                    calendarFeed(secret: secret) { answer in finish(CalendarFeedPath.response(to: answer, ifNoneMatch: tags)) }
                } sent: { [unowned self] response in respond(response, to: session, headOnly: headOnly, close: close) }
            } else {
                reply(.text(404, "not found"))
            }
        }
    }

    /// Answers a request whose answer comes later, on the loop: reading pauses, so the
    /// next request waits its turn, then `serveHTTP` goes on.
    private func answerOffLoop(_ session: Session, _ exchange: HTTPExchange,
                               start: (@escaping (HTTPResponse) -> Void) -> Void,
                               sent: @escaping (HTTPResponse) -> Void) {
        exchange.answering = true
        session.connection.pauseReading()
        let id = session.id
        start { [unowned self] response in
            guard let session = sessions[id], session.connection.isOpen else { return }
            exchange.answering = false
            sent(response)
            session.connection.resumeReading()
            serveHTTP(session, exchange)
        }
    }

    // MARK: WebSocket

    /// `GET /ws` with `Upgrade: websocket`: from a page of ours (or no page at all), the
    /// connection becomes a session in JSON mode. No greeting frame; it logs in in-socket.
    private func upgrade(_ head: HTTPRequestHead, session: Session, exchange: HTTPExchange) {
        guard state.webOrigins.withLock({ $0 }).admits(head.header("origin")) else {
            Log.info("websocket refused", ["reason": "foreign origin", "addr": session.connection.peerHost])
            respond(.text(403, "this origin may not open a session"), to: session, headOnly: false, close: true)
            return
        }
        switch WebSocketHandshake.accept(head) {
        case .failure(let refusal):
            let version = refusal.status == 426 ? [HTTPResponse.Header("Sec-WebSocket-Version", "13")] : []
            respond(.text(refusal.status, refusal.reason, headers: version), to: session, headOnly: false, close: true)
        case .success(let accept):
            respond(HTTPResponse(status: 101, headers: [.init("Upgrade", "websocket"), .init("Connection", "Upgrade"),
                                                        .init("Sec-WebSocket-Accept", accept)]),
                    to: session, headOnly: false, close: false)
            let link = WebSocketLink(maxMessageBytes: configuration.maxLine)
            session.mode = .json
            session.door = .webSocket(link)
            session.lastActivity = MonotonicTime.nanoseconds()
            sessions.scheduleIdleCheck(session, after: configuration.idleTimeout / 2)
            // Frames the client sent right behind its upgrade request.
            let early = exchange.parser.takeBuffered()
            if !early.isEmpty {
                early.withUnsafeBytes { link.append($0) }
                processLines(of: session)
            }
        }
    }

    /// Whether a request is ready on `session`: a complete line, or a whole WebSocket
    /// message (control frames before it are answered on the way).
    func hasCompleteRequest(_ session: Session) -> Bool {
        guard let link = session.webSocket else { return session.framer.hasCompleteLine }
        return link.hasMessage(on: session.connection) { session.lastActivity = MonotonicTime.nanoseconds() }
    }

    /// The next request as a line frame, once `hasCompleteRequest` said there is one.
    func nextRequest(_ session: Session) -> LineFramer.Frame? {
        guard let link = session.webSocket else { return session.framer.next() }
        return link.takeMessage()
    }

    /// `POST /mail/stop/SECRET`: mail off for whoever's link it is; nil when the store
    /// could not say.
    private func stopMail(secret: String, completion: @escaping (Bool?) -> Void) {
        let done = LoopBound(completion, loop: loop)
        let loop = self.loop
        database.submit({ db in try db.stopMail(token: secret) }) { result in
            if case .success(true) = result { Log.info("mail stopped by its link") }
            if case .failure(let error) = result { Log.warn("mail stop unavailable", ["error": error]) }
            loop.execute { done.value(try? result.get()) }
        }
    }
}

import ChorusCore

/// Where each verb goes: the table in ChorusProtocol has checked arity and options and
/// built the typed command; `RouteTable` finds its handler by the row's name.
extension Hub {
    func handle(_ request: Request, from session: Session) {
        let verb = CommandVerb(request.verb)
        // The next reply this session sends answers this line (a household one's rides in
        // its `PendingReply`).
        session.answering = verb
        if request.needsLogin && session.account == nil {
            session.send(.error(ChorusError(.logInFirst)), tag: request.tag)
            return
        }
        switch RouteTable.route(for: request) {
        case .onLoop(let answer)?: answer(self, session, request.command, request.tag)
        case .databaseJob(let job)?:
            session.answering = nil
            runJob(job, request, verb: verb, from: session)
        case nil: session.send(.error(.noHandler(request.verb)), tag: request.tag)
        }
    }

    /// MODE text|json — the reply already speaks the new mode, so a bot can parse it.
    func switchMode(of session: Session, to mode: OutputMode, tag: String?) {
        if session.webSocket != nil && mode != .json {
            session.send(.error(.webSocketSpeaksJSON), tag: tag)
            return
        }
        session.mode = mode
        session.send(.ok("mode \(mode.rawValue)", [("mode", .string(mode.rawValue))]), tag: tag)
    }

    /// LOGOUT — the connection stays.
    func logout(_ session: Session, tag: String?) {
        let name = session.account?.name ?? ""
        setAccount(nil, of: session)
        session.send(.ok("logged out \(name)"), tag: tag)
    }

    func help(topic: String?) -> Reply {
        do throws(ChorusError) {
            let lines = try CommandTable.help(topic: topic)
            let commands = try CommandTable.specs(forHelpTopic: topic)
                .map { spec in JSONValue.object([("usage", .string(spec.usage)), ("summary", .string(spec.summary)),
                                                 ("login", .bool(spec.needsLogin))]) }
            // Counts commands, not lines: a wide row wraps onto several.
            return .ok(counted(commands.count, "command"), body: lines, [("commands", .array(commands))])
        } catch {
            return .error(error)
        }
    }
}

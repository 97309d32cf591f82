import ChorusCore
import ChorusStore

/// Where each verb goes. The table in ChorusProtocol has already checked arity and
/// options; this switch only routes, and the handlers live in files by subject.
extension Hub {
    func handle(_ request: Request, from session: Session) {
        if request.needsLogin && session.account == nil {
            session.send(.error(.unauthorized("log in first: LOGIN NAME PASSWORD, or REGISTER NAME PASSWORD")), tag: request.tag)
            return
        }
        switch request.command {
        case .help(let topic):
            session.send(help(topic: topic), tag: request.tag)
        case .mode(let mode):
            // The reply already speaks the new mode, so a bot can parse it.
            session.mode = mode
            session.send(.ok("mode \(mode.rawValue)", [("mode", .string(mode.rawValue))]), tag: request.tag)
        case .ping(let token):
            session.send(.ok(token.map { "PONG \($0)" } ?? "PONG", [("pong", .string(token))]), tag: request.tag)
        case .quit:
            session.send(.ok("bye"), tag: request.tag)
            session.connection.closeAfterFlush()
        case .register(let name, let password):
            register(name: name, password: password, session: session, tag: request.tag)
        case .login(let name, let password):
            login(name: name, password: password, session: session, tag: request.tag)
        case .auth(let token):
            authenticate(token: token, session: session, tag: request.tag)
        case .logout:
            let name = session.account?.name ?? ""
            setAccount(nil, of: session)
            session.send(.ok("logged out \(name)"), tag: request.tag)
        case .whoami:
            session.send(whoami(session), tag: request.tag)
        case .password(let old, let new):
            changePassword(old: old, new: new, session: session, tag: request.tag)
        default:
            household(request, from: session)
        }
    }

    private func help(topic: String?) -> Reply {
        do throws(ChorusError) {
            let lines = try CommandTable.help(topic: topic)
            let commands = try CommandTable.specs(forHelpTopic: topic)
                .map { spec in JSONValue.object([("usage", .string(spec.usage)), ("summary", .string(spec.summary)),
                                                 ("login", .bool(spec.needsLogin))]) }
            return .ok("\(lines.count) command\(lines.count == 1 ? "" : "s")", body: lines, [("commands", .array(commands))])
        } catch {
            return .error(error)
        }
    }
}

import ChorusCore

/// What the server does with one row's command: answer it on the session's loop
/// (session and account verbs), or run it as one job in the database's transaction
/// (household and admin verbs). `RouteTable` holds one per row.
enum Route: Sendable {
    case onLoop(@Sendable (Hub, Session, any ParsedCommand, String?) -> Void)
    case databaseJob(DatabaseJobRoute)
}

/// A household or admin verb's handler and what its run needs besides the database.
struct DatabaseJobRoute: Sendable {
    /// The command may change a due, reminder or plan: notices now owed fire in the same
    /// transaction and the scheduler's timer moves.
    let touchesTasks: Bool
    /// The handler wants who is online and the server's figures.
    let needsLoopState: Bool
    let run: @Sendable (CommandContext, any ParsedCommand) throws -> CommandResult
}

/// One line of the route table: a row's name, the `Command` shape its row builds, and
/// its route.
struct RouteEntry: Sendable {
    let verb: String
    let commandType: any ParsedCommand.Type
    let route: Route

    /// A verb the hub answers itself.
    static func onLoop<C: ParsedCommand>(_ verb: String, _ type: C.Type,
                                         _ answer: @escaping @Sendable (Hub, Session, C, String?) -> Void) -> RouteEntry {
        RouteEntry(verb: verb, commandType: type, route: .onLoop { hub, session, command, tag in
            guard let command = command as? C else {
                return session.send(.error(.routeMismatch(verb)), tag: tag)
            }
            answer(hub, session, command, tag)
        })
    }

    /// A verb run by a `CommandContext` handler on the database thread.
    static func job<C: ParsedCommand>(_ verb: String, _ type: C.Type, touchesTasks: Bool = false, needsLoopState: Bool = false,
                                      _ run: @escaping @Sendable (CommandContext, C) throws -> CommandResult) -> RouteEntry {
        RouteEntry(verb: verb, commandType: type, route: .databaseJob(DatabaseJobRoute(touchesTasks: touchesTasks, needsLoopState: needsLoopState) {
            context, command in
            guard let command = command as? C else { throw ChorusError.routeMismatch(verb) }
            return try run(context, command)
        }))
    }

    /// Whether this route runs where a row of `kind` must run.
    func fits(_ kind: CommandKind) -> Bool {
        switch (route, kind) {
        case (.onLoop, .session), (.onLoop, .account), (.databaseJob, .household), (.databaseJob, .admin): true
        default: false
        }
    }
}

extension CommandKind {
    /// Household and admin verbs are database jobs that leave the session as it is; they
    /// may overlap (`SessionInput.inFlight`).
    var isDatabaseJob: Bool { self == .household || self == .admin }
}

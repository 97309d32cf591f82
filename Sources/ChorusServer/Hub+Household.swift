import ChorusCore
import ChorusNet
import ChorusStore

/// Rooms, tasks and chat: each command runs as one job on the database thread (inside
/// the group-commit transaction), and its reply and events come back to the loop after
/// the commit. Because the database thread runs jobs in order and the loop takes their
/// results in order, every member sees a room's events in the same order.
extension Hub {
    /// Queues a household command's reply behind the session's earlier ones, with the
    /// notices among `deliveries` meant for this session's user to follow it, then sends
    /// what may go.
    func queueReply(_ reply: Reply, verb: CommandVerb, tag: String?, to id: UInt64, after gate: ReplyGate?,
                    deliveries: [Delivery]) {
        guard let session = sessions[id] else { return }
        let user = session.account?.id
        let notices = deliveries.filter { $0.isNotice && user.map($0.audience.contains) == true }.map(\.event)
        session.pendingReplies.append(PendingReply(verb: verb, reply: reply, tag: tag, gate: gate, notices: notices))
        releaseReplies(of: id)
    }

    /// Sends the session's queued replies, oldest first, up to the first whose events
    /// other loops are still writing; the session may then go on with its next lines.
    /// Each session waits only for its own replies' events, never for another's.
    func releaseReplies(of id: UInt64) {
        guard let session = sessions[id] else { return }
        var sent = false
        while let next = session.pendingReplies.first, next.gate?.isOpen ?? true {
            _ = session.pendingReplies.popFirst()
            // The replies follow the events already due to the session. Only when one goes:
            // a flush copies every recipient's events, which the turn's end writes directly.
            if !sent { pendingFanOut.flush() }
            session.input.answered()
            state.metrics.command(next.verb, code: next.reply.code)
            session.send(next.reply, tag: next.tag)
            for notice in next.notices { session.send(notice) }
            sent = true
        }
        if sent { processLines(of: session) }
    }

    /// Sends every reply the session is owed now, without waiting for other loops to write
    /// their events: for a session about to close, which would otherwise never get them.
    func sendOwedReplies(of session: Session) {
        while let next = session.pendingReplies.popFirst() {
            session.input.answered()
            state.metrics.command(next.verb, code: next.reply.code)
            session.send(next.reply, tag: next.tag)
            for notice in next.notices { session.send(notice) }
        }
    }

    /// Runs a household or admin command's handler as one database job.
    func runJob(_ job: DatabaseJobRoute, _ request: Request, verb: CommandVerb, from session: Session) {
        let command = request.command
        run(session, request, verb: verb, needsLoopState: job.needsLoopState, touchesTasks: job.touchesTasks) {
            try job.run($0, command)
        }
    }

    /// Runs `work` on the database thread. The session may go on reading: up to 64 household
    /// commands overlap (`SessionInput`), and their replies come back in order; the events go
    /// out even if the issuing session has gone meanwhile.
    /// `touchesTasks` and `needsLoopState` come from the command's route (`DatabaseJobRoute`).
    private func run(_ session: Session, _ request: Request, verb: CommandVerb, needsLoopState: Bool = false,
                     touchesTasks: Bool = false,
                     _ work: @escaping @Sendable (CommandContext) throws -> CommandResult) {
        guard let account = session.account else { return }
        let caller = Caller(id: account.id, name: account.name, token: session.token)
        let online = needsLoopState ? state.presence.onlineUsers : []
        let status = needsLoopState ? self.status : ServerStatus()
        let sessionID = session.id
        let tag = request.tag
        let hub = bound
        let clock = self.clock
        let state = self.state
        session.input.sent()
        databaseWake.schedule()
        database.submit({ db in
            let context = CommandContext(db: db, caller: caller, now: clock.now(), online: online, status: status,
                                         notices: state.notices, publicOrigin: state.publicOrigin)
            context.mailEnabled = state.mailEnabled
            var result = try work(context)
            if touchesTasks {
                let next = try context.fireDueNotices()
                result.deliveries = context.deliveries
                result.nextNotice = .some(next)
                result.queuedNotices = context.queuedNotices
            }
            // Closes ride the log where other nodes read it, in this transaction.
            if !result.sessionControl.isEmpty { result.controlID = try db.stageSessionControl(result.sessionControl) }
            return result
        }, deferWake: true) { result in
            // On the database thread, just after the commit: every loop gets the events,
            // this one with the reply when the bus says so, and the scheduler's loop any
            // new notice time. Failures go through the bus too, so replies keep their order.
            if case .success(let done) = result, done.queuedNotices > 0 { state.wakeNoticeDispatcher() }
            let outcome = result.mapError(AccountService.clientError)
            if case .success = outcome { StoreFailureLog.succeeded() }
            let hubs = state.hubs
            let fanOut = (try? outcome.get()).map { FanOut($0, issuer: sessionID, state: state, loops: hubs.count) }
            let reply: Reply = switch outcome {
            case .success(let done): done.reply
            case .failure(let error): .error(error)
            }
            state.bus.publish(fanOut, issuer: IssuerPart(hub: hub) { hub, gate, handed in
                hub.queueReply(reply, verb: verb, tag: tag, to: sessionID, after: gate, deliveries: handed?.deliveries ?? [])
                handed?.run(on: hub, withReply: true)
            }, whenWritten: nil)
            if case .success(let done) = outcome, case .some(let next) = done.nextNotice, let scheduler = state.schedulerHub {
                scheduler.loop.enqueue { scheduler.value.armNoticeTimer(at: next) }
            }
        }
    }
}

/// Wakes the database queue once at the end of a loop turn in which household commands
/// were queued with `deferWake`, so everything the turn read commits in one batch.
final class DatabaseWake: TurnPreparing {
    private let loop: EventLoop
    private let database: any StoreExecutor
    private var scheduled = false

    init(loop: EventLoop, database: any StoreExecutor) {
        self.loop = loop
        self.database = database
    }

    func schedule() {
        guard !scheduled else { return }
        scheduled = true
        loop.prepareBeforeWrites(self)
    }

    func prepareWrites() {
        scheduled = false
        database.wakeForQueuedJobs()
    }
}

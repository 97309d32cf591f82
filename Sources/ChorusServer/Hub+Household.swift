import ChorusCore
import ChorusNet
import ChorusStore

/// Rooms, tasks and chat: each command runs as one job on the database thread (inside
/// the group-commit transaction), and its reply and events come back to the loop after
/// the commit. Because the database thread runs jobs in order and the loop takes their
/// results in order, every member sees a room's events in the same order.
extension Hub {
    /// The commands `household` runs: database jobs that leave the session as it is.
    static func householdCommand(_ command: Command) -> Bool {
        switch command {
        case .help, .mode, .ping, .quit, .register, .login, .auth, .logout, .whoami, .password: return false
        default: return true
        }
    }

    /// Queues a household command's reply behind the session's earlier ones, with the
    /// notices among `deliveries` meant for this session's user to follow it, then sends
    /// what may go.
    func queueReply(_ reply: Reply, tag: String?, to id: UInt64, after gate: ReplyGate?, deliveries: [Delivery]) {
        guard let session = sessions[id] else { return }
        let user = session.account?.id
        let notices = deliveries.filter { $0.isNotice && user.map($0.audience.contains) == true }.map(\.event)
        session.pendingReplies.append(PendingReply(reply: reply, tag: tag, gate: gate, notices: notices))
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
            session.send(next.reply, tag: next.tag)
            for notice in next.notices { session.send(notice) }
            sent = true
        }
        if sent { processLines(of: session) }
    }

    func household(_ request: Request, from session: Session) {
        switch request.command {
        case .dm(let user, let text): run(session, request) { try $0.dm(user, text: text) }
        case .stats(let room): run(session, request) { try $0.stats(room) }
        case .calendar(let scope): run(session, request) { try $0.calendar(scope) }
        case .sync(let after, let limit): run(session, request) { try $0.sync(after: after, limit: limit) }
        case .tokenCreate(let label): run(session, request) { try $0.tokenCreate(label: label) }
        case .tokenList: run(session, request) { try $0.tokenList() }
        case .tokenRevoke(let label): run(session, request) { try $0.tokenRevoke(label: label) }
        case .adminUsers: run(session, request, needsLoopState: true) { try $0.adminUsers() }
        case .adminRooms: run(session, request) { try $0.adminRooms() }
        case .adminStats: run(session, request, needsLoopState: true) { try $0.adminStats() }
        case .adminDisable(let user): run(session, request) { try $0.adminSetDisabled(user, true) }
        case .adminEnable(let user): run(session, request) { try $0.adminSetDisabled(user, false) }
        case .adminKick(let user): run(session, request) { try $0.adminKick(user) }
        case .adminDelete(let room): run(session, request) { try $0.adminDelete(room) }
        case .rooms: run(session, request) { try $0.rooms() }
        case .roomCreate(let name): run(session, request) { try $0.roomCreate(name: name) }
        case .roomShow(let room): run(session, request, needsLoopState: true) { try $0.roomShow(room) }
        case .roomRename(let room, let name): run(session, request) { try $0.roomRename(room, to: name) }
        case .roomAdd(let room, let user): run(session, request) { try $0.roomAdd(room, user: user) }
        case .roomRemove(let room, let user): run(session, request, touchesTasks: true) { try $0.roomRemove(room, user: user) }
        case .roomLeave(let room): run(session, request, touchesTasks: true) { try $0.roomLeave(room) }
        case .roomRole(let room, let user, let role): run(session, request) { try $0.roomRole(room, user: user, role: role) }
        case .roomDelete(let room): run(session, request, touchesTasks: true) { try $0.roomDelete(room) }
        case .roomInvite(let room, let options): run(session, request) { try $0.roomInvite(room, options: options) }
        case .roomInvites(let room): run(session, request) { try $0.roomInvites(room) }
        case .roomUninvite(let room, let code): run(session, request) { try $0.roomUninvite(room, code: code) }
        case .roomJoin(let code): run(session, request) { try $0.roomJoin(code: code) }
        case .taskAdd(let room, let title, let options): run(session, request, touchesTasks: true) { try $0.taskAdd(room, title: title, options: options) }
        case .taskShow(let task): run(session, request) { try $0.taskShow(task) }
        case .taskEdit(let task, let options): run(session, request, touchesTasks: true) { try $0.taskEdit(task, options: options) }
        case .taskAssign(let task, let user): run(session, request, touchesTasks: true) { try $0.taskAssign(task, to: user) }
        case .taskProgress(let task, let percent): run(session, request, touchesTasks: true) { try $0.taskProgress(task, percent: percent) }
        case .taskDone(let task): run(session, request, touchesTasks: true) { try $0.taskDone(task) }
        case .taskReopen(let task): run(session, request, touchesTasks: true) { try $0.taskReopen(task) }
        case .taskDelete(let task): run(session, request) { try $0.taskDelete(task) }
        case .tasks(let scope, let filter): run(session, request) { try $0.tasks(scope: scope, filter: filter) }
        case .say(let room, let text): run(session, request) { try $0.say(room, text: text) }
        case .comment(let task, let text): run(session, request) { try $0.comment(task, text: text) }
        case .history(let room, let limit, let before): run(session, request) { try $0.history(room, limit: limit, before: before) }
        default:
            session.send(.error(.internal("\(request.verb) has no handler")), tag: request.tag)
        }
    }

    /// Runs `work` on the database thread. The session reads nothing more until the reply
    /// is back; the events go out even if the issuing session has gone meanwhile.
    /// `touchesTasks`: the command may have changed a due, reminder or plan, so notices
    /// that are now owed fire in the same transaction and the scheduler's timer moves.
    /// `needsLoopState`: the handler wants who is online and the server's figures.
    private func run(_ session: Session, _ request: Request, needsLoopState: Bool = false, touchesTasks: Bool = false,
                     _ work: @escaping @Sendable (CommandContext) throws -> CommandResult) {
        guard let account = session.account else { return }
        let caller = Caller(id: account.id, name: account.name)
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
            let context = CommandContext(db: db, caller: caller, now: clock.now(), online: online, status: status)
            var result = try work(context)
            if touchesTasks {
                try context.fireDueNotices()
                result.deliveries = context.deliveries
                result.nextNotice = .some(try context.nextNoticeTime())
            }
            return result
        }, deferWake: true) { result in
            // On the database thread, just after the commit: every loop gets the events
            // (this one after the reply), and the scheduler's loop any new notice time.
            let outcome = result.mapError(AccountService.clientError)
            let hubs = state.hubs
            let fanOut = (try? outcome.get()).map { FanOut($0, issuer: sessionID, state: state, loops: hubs.count) }
            let gate = fanOut.flatMap { state.bus.publish($0, issuer: hub) }
            hub.loop.enqueue {
                let hub = hub.value
                let reply: Reply = switch outcome {
                case .success(let done): done.reply
                case .failure(let error): .error(error)
                }
                hub.queueReply(reply, tag: tag, to: sessionID, after: gate, deliveries: fanOut?.deliveries ?? [])
                fanOut?.run(on: hub, withReply: true)
            }
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
    private let database: DatabaseQueue
    private var scheduled = false

    init(loop: EventLoop, database: DatabaseQueue) {
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

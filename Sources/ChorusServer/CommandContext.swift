import ChorusCore
import ChorusRendering
import ChorusNet
import ChorusStore
import Foundation

/// Who is asking.
struct Caller: Sendable {
    let id: Int64
    let name: String
    /// The token the session logged in with; nil for a password (or the server).
    var token: TokenRecord? = nil
}

/// An event and the users whose sessions should get it.
struct Delivery: Sendable {
    private(set) var id: Int64
    private(set) var event: RenderedEvent
    /// What the event is rendered from while its id is provisional (`FinalEventIDs`).
    private var unrendered: UnrenderedEvent?
    /// Each user once, in increasing order, so fan-out needs no set of its own.
    let audience: [Int64]
    /// A notice (overdue, reminder, behind) or an invitation (`room.invited`): kept for
    /// audience members with no session, and delivered at their next login.
    var isNotice = false
    /// For `notify.tz`: the zone its audience's sessions show times in from now on.
    var setsZone: String?

    init(id: Int64, event: RenderedEvent, audience: [Int64], isNotice: Bool = false) {
        self.id = id
        self.event = event
        self.audience = Self.uniqued(audience)
        self.isNotice = isNotice
    }

    /// An event whose id is provisional: rendered once the final id is known (`resolving`).
    init(provisionalID id: Int64, _ unrendered: UnrenderedEvent, audience: [Int64], isNotice: Bool) {
        self.init(id: id, event: Self.notYetRendered, audience: audience, isNotice: isNotice)
        self.unrendered = unrendered
    }

    private static let notYetRendered = RenderedEvent(text: [], json: [])

    /// With its final id, rendered.
    func resolving(_ ids: FinalEventIDs) -> Delivery {
        guard let unrendered else { return self }
        var final = self
        final.id = ids.final(id)
        final.event = unrendered.rendering(id: final.id)
        final.unrendered = nil
        return final
    }

    /// Sorted without repeats. A room's member list arrives sorted, which keeps this linear.
    static func uniqued(_ users: [Int64]) -> [Int64] {
        // The common case, a room's member list, is already that: keep it without a copy.
        if users.isStrictlyIncreasing { return users }
        var sorted = users
        if !users.isSorted { sorted.sort() }
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[kept - 1] != sorted[index] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }
}

private extension Array where Element == Int64 {
    var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0 <= $1 } }
    var isStrictlyIncreasing: Bool { zip(self, dropFirst()).allSatisfy { $0 < $1 } }
}

/// What an event's wire form is made of, but its id.
struct UnrenderedEvent: Sendable {
    let name: String
    let at: String
    let by: String?
    let payloadJSON: [UInt8]
    let text: String

    func rendering(id: Int64) -> RenderedEvent {
        Event.rendering(id: id, name: name, at: at, by: by, payloadJSON: payloadJSON, text: text,
                        shown: ReaderZone.shownByServer(text))
    }
}

/// What a household command produced: the reply, and events to fan out once committed.
/// Its event ids may be provisional until then (`FinalEventIDs`).
struct CommandResult: HoldsProvisionalEventIDs {
    var reply: Reply
    var deliveries: [Delivery] = []
    /// When the scheduler next owes a notice, when the command may have changed it.
    var nextNotice: Date?? = .none
    /// Notices this command queued for people not looking: the dispatcher looks at once.
    var queuedNotices = 0
    /// Accounts whose sessions must close now (ADMIN KICK/DISABLE), with the reason told.
    var closeUsers: [Int64] = []
    var closeReason = ""
    /// A revoked token: the sessions that logged in with it close.
    var closeToken: Int64?
    /// Where the closes sit in the log, on an engine that stores them (`Store.appendSessionControl`).
    var controlID: Int64?
    /// For a reply that shows the log (SYNC, HISTORY): an id at or past everything it
    /// shows. A tail sends the reply only once it delivered every event up to there, so
    /// nothing the reply shows arrives live after it (as on one node).
    var seenUpTo: Int64?

    /// The closes, for the store.
    var sessionControl: SessionControl {
        SessionControl(closeUsers: closeUsers, reason: closeReason, closeToken: closeToken)
    }

    func resolvingEventIDs(_ ids: FinalEventIDs) -> CommandResult {
        var final = self
        final.deliveries = deliveries.map { $0.resolving(ids) }
        final.controlID = controlID.map(ids.final)
        return final
    }
}

/// What the loop knows and the database does not, for ADMIN STATS.
struct ServerStatus: Sendable {
    var sessions = 0
    var usersOnline = 0
    var uptime = 0.0
    var eventsPerSecond = 0.0
    var eventsLastMinute = 0
    /// Sessions closed by each limit since the start.
    var limitCloses: [LimitClose: Int] = [:]
    /// Log lines standard error could not take.
    var droppedLogLines = 0
    /// Every live node, this one first, when several share the store; nil in one process.
    var nodes: [NodePresence]?
}

/// One household command's run on the database thread: the caller, the time, the open
/// transaction, and the events it records. Handlers (the `*Commands.swift` files: rooms,
/// invitations, blocks, tasks, chat, planning, tokens, admin; `DueNotices.swift`) are
/// methods on it; they look things up, ask the domain (`Permissions`, `TaskLifecycle`, ...),
/// write what it decided, and call `emit` for each event, so
/// the event is stored in the same transaction as the change.
final class CommandContext {
    /// This command's unit of work, as the executor hands it: one existential per command.
    let db: any Store
    let caller: Caller
    let now: Date
    /// Dates and times as the caller reads them: in their zone (`NOTIFY tz=`), read from
    /// the store the first time a command needs it; the server's zone for the scheduler.
    private(set) lazy var present = Presentation(now: now, calendar: callerCalendar())
    /// Users with at least one session, for ROOM SHOW's `online`.
    let online: Set<Int64>
    /// The loop's figures, for ADMIN STATS.
    let status: ServerStatus
    /// Holds what must reach people at their next login when they are away (`emit`).
    let notices: any NoticeLedger
    /// Where calendar links point (CALENDAR LINK); nil outside a command's job.
    let publicOrigin: PublicOrigin?
    private(set) var deliveries: [Delivery] = []
    /// Whether the server sends mail (`--smtp`): notices are queued for mailboxes only then.
    var mailEnabled = false
    /// Rows this command queued for the dispatchers (`NoticeOutbox.swift`).
    var queuedNotices = 0

    init(db: any Store, caller: Caller, now: Date, online: Set<Int64>, status: ServerStatus = ServerStatus(),
         notices: any NoticeLedger, publicOrigin: PublicOrigin? = nil) {
        self.db = db
        self.publicOrigin = publicOrigin
        self.notices = notices
        self.caller = caller
        self.now = now
        self.timestamp = Timestamp.rfc3339(now)
        self.online = online
        self.status = status
    }

    /// `now` as stored and sent (CONTRACT §5).
    let timestamp: String

    /// The most one SYNC or HISTORY page holds, roughly, in bytes: 500 events of 4,000
    /// two-byte characters would be a 4 MB reply. A page that would pass it ends early,
    /// with `more`, and always holds at least one item.
    static let pageBytes = 256 * 1024

    /// How many of `items`, in order, fit in one page of `pageBytes`.
    static func countFitting<Item>(_ items: some Sequence<Item>, size: (Item) -> Int) -> Int {
        var count = 0
        var bytes = 0
        for item in items {
            bytes += size(item)
            if count > 0 && bytes > pageBytes { break }
            count += 1
        }
        return count
    }

    // MARK: Events

    /// Stores the event and queues it for `audience` (user ids). Returns its id, which
    /// may be provisional: only store methods may be given it, and the event is rendered
    /// once the id is final.
    /// `by` is the caller, except for the scheduler's notices (`notice`), which nobody
    /// caused. A notice, and an event `heldForLogin` (an invitation), is held for those of
    /// its audience with no session, who get it at their next login.
    @discardableResult
    func emit(_ name: String, room: Int64?, user: Int64? = nil, payload: [(String, JSONValue)], text: String,
              audience: [Int64], notice: Bool = false, heldForLogin: Bool = false) throws -> Int64 {
        let by = notice ? nil : caller.name
        let held = notice || heldForLogin
        // Stored as delivered: other nodes' tails deliver it from the row.
        let audience = Delivery.uniqued(audience)
        var payloadBytes: [UInt8] = []
        JSONValue.encodeFields(payload, into: &payloadBytes)
        let id = try db.stageEvent(room: room, user: user, name: name, by: by, at: timestamp,
                                   payload: String(decoding: payloadBytes, as: UTF8.self), text: text, audience: audience)
        let unrendered = UnrenderedEvent(name: name, at: timestamp, by: by, payloadJSON: payloadBytes, text: text)
        if FinalEventIDs.isProvisional(id) {
            deliveries.append(Delivery(provisionalID: id, unrendered, audience: audience, isNotice: held))
        } else {
            deliveries.append(Delivery(id: id, event: unrendered.rendering(id: id), audience: audience, isNotice: held))
        }
        if held { try notices.stored(event: id, audience: audience, db: db) }
        return id
    }

    /// The event just emitted changes its audience's zone (`notify.tz`).
    func markZoneChange(_ zone: String) {
        deliveries[deliveries.count - 1].setsZone = zone
    }

    /// A room event for everyone in the room now. Returns its id.
    @discardableResult
    func emitToRoom(_ name: String, room: Int64, payload: [(String, JSONValue)], text: String) throws -> Int64 {
        let audience = try db.memberIDs(ofRoom: room)
        return try emit(name, room: room, payload: [("room", .int(room))] + payload, text: text, audience: audience)
    }

    // MARK: Finding things the caller may see

    /// R: a room id, or a name unique among the caller's rooms. A room the caller is not in
    /// answers exactly like one that does not exist (`Permissions`).
    func room(_ reference: String) throws -> RoomAccess {
        let digits = reference.hasPrefix("#") ? String(reference.dropFirst()) : reference
        let id = try Int64(digits) ?? Permissions.roomNamed(reference, among: try db.roomIDs(named: reference, forUser: caller.id))
        return try Permissions.visibleRoom(try db.roomAccess(id: id, forUser: caller.id), reference: reference)
    }

    /// The room with its progress figures, for replies that show it.
    func roomRecord(_ access: RoomAccess) throws -> RoomRecord {
        guard let room = try db.room(id: access.id, forUser: caller.id, now: now) else {
            throw DomainError.noSuchRoom(String(access.id))
        }
        return room
    }

    /// A room the caller must hold at least `role` in.
    func room(_ reference: String, atLeast role: Role, to action: String) throws -> RoomAccess {
        let found = try room(reference)
        try Permissions.require(role, in: found, to: action)
        return found
    }

    /// A task the caller may see: in one of their rooms, or their own personal task.
    /// Returns the caller's role in the task's room (nil for a personal task).
    func task(_ id: Int64) throws -> (task: TaskRecord, role: Role?) {
        guard let task = try db.task(id: id) else { throw DomainError.noSuchTask(id) }
        let role = try task.room.flatMap { try db.role(ofUser: caller.id, inRoom: $0) }
        return (task, try Permissions.visibleTask(task, caller: caller.id, role: role))
    }

    /// A task the caller may edit or delete: its creator, or an admin or owner of its room.
    func editableTask(_ id: Int64, to action: String) throws -> TaskRecord {
        let (task, role) = try task(id)
        try Permissions.requireEditable(task, caller: caller.id, role: role, to: action)
        return task
    }

    /// An account by name, or 404.
    func user(named raw: String) throws -> AccountRecord {
        guard let account = try db.account(named: raw.lowercased()) else { throw DomainError.noSuchUser(raw) }
        return account
    }

    /// Who hears about a task: the room's members, or the owner of a personal task.
    func audience(of task: TaskRecord) throws -> [Int64] {
        if let room = task.room { return try db.memberIDs(ofRoom: room) }
        return [task.ownerID ?? caller.id]
    }

    /// Emits a task event to whoever should hear about it.
    func emitTask(_ name: String, _ task: TaskRecord, text: String) throws {
        try emit(name, room: task.room, user: task.room == nil ? task.ownerID : nil,
                 payload: [("room", task.room.map { .int($0) } ?? .null), ("task", present.task(task))],
                 text: text, audience: try audience(of: task))
    }

    func result(_ reply: Reply) -> CommandResult {
        CommandResult(reply: reply, deliveries: deliveries, queuedNotices: queuedNotices)
    }

    private func callerCalendar() -> Calendar {
        guard caller.id != 0, let choices = try? db.notifyChoices(ofUser: caller.id) else { return .current }
        return choices.calendar()
    }
}

@available(*, unavailable)
extension CommandContext: Sendable {}

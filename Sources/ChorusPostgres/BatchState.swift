import ChorusCore
import ChorusStore

/// One event waiting in memory for its id, the batch's turn at the counter.
struct StagedEvent {
    var room: Int64?
    var user: Int64?
    var name: String
    var by: String?
    var at: String
    var payload: String
    var text: String
    var audience: [Int64]
    var peer: Int64?
    var control = false
    var closeToken: Int64?
}

/// A row naming an event still staged, written once the event has its id: a membership
/// span's change, or a notice held for the users of its audience (`pending_notices`).
/// Unread counts (`read_markers`) are changed here too, in the order the jobs asked,
/// though they name no event: written at the batch's end, under the event counter's lock,
/// every node's changes to them take turns instead of waiting on each other's rows.
enum StagedRowChange {
    case open(room: Int64, user: Int64, event: Int64)
    case close(room: Int64, user: Int64?, event: Int64)
    case holdNotice(users: [Int64], event: Int64)
    /// A counted event (`ReadMarker.counts`) said by `by`: one more for the room's others.
    case countUnread(room: Int64, by: String?)
    /// A new member's count starts at nothing.
    case startUnread(room: Int64, user: Int64)
    /// READ: the marker moves up to `event`, the count loses what the move passes.
    case moveReadMarker(room: Int64, user: Int64, event: Int64)
}

/// What one batch's transaction keeps in memory: its events without ids yet and the ids
/// of those already stored, and what it read under locks it holds to COMMIT. Provisional
/// id `-k` is the batch's k-th staged event (`FinalEventIDs`); the first `finals.count`
/// have been stored, the rest are `pending`, in order.
struct BatchState {
    /// Every event staged in this batch; the first `finals.count` are stored.
    private var events: [StagedEvent] = []
    private(set) var finals: [Int64] = []
    /// Every row change naming a staged event; the first `spansRun` have been written.
    private var spans: [StagedRowChange] = []
    private var spansRun = 0

    /// The events staged and not stored yet.
    var pending: ArraySlice<StagedEvent> { events[finals.count...] }

    /// Rooms whose row this transaction has locked, in order (`PostgresStore.memberIDs`).
    private(set) var lockedRooms: [Int64] = []

    /// Where a job started: a job rolled back to its savepoint drops what it staged, and
    /// the row locks it took are released.
    struct Mark {
        let events: Int
        let stored: Int
        let spans: Int
        let spansRun: Int
        let rooms: Int
    }

    var mark: Mark {
        Mark(events: events.count, stored: finals.count, spans: spans.count, spansRun: spansRun, rooms: lockedRooms.count)
    }

    /// Member lists read under those locks: no other transaction can change them until
    /// COMMIT, and this one's own changes drop them (`forgetMembers`).
    private var members: [Int64: [Int64]] = [:]

    /// The next notice moment a task update read back with the task
    /// (`PostgresStore.updateTaskReadingBack`), until the next write: `nextNoticeTime`'s answer.
    var nextNotice: Int64??

    func hasLocked(room: Int64) -> Bool { lockedRooms.contains(room) }

    mutating func locked(room: Int64) { lockedRooms.append(room) }

    /// Access checks read while their room's row was locked (the caller's member row is
    /// locked by the check itself), by room and user: they stand until COMMIT too.
    private var accesses: [Int64: [Int64: RoomAccess]] = [:]

    func members(ofLocked room: Int64) -> [Int64]? { members[room] }

    func access(ofLocked room: Int64, user: Int64) -> RoomAccess? { accesses[room]?[user] }

    mutating func remember(access: RoomAccess, of user: Int64) { accesses[access.id, default: [:]][user] = access }

    mutating func forgetAccesses(of room: Int64) { accesses[room] = nil }

    mutating func remember(members list: [Int64], of room: Int64) { members[room] = list }

    mutating func forgetMembers(of room: Int64) { members[room] = nil }

    var finalIDs: FinalEventIDs { FinalEventIDs(finals) }

    mutating func reset() { self = BatchState() }

    /// Returns the event's provisional id.
    mutating func stage(_ event: StagedEvent) -> Int64 {
        events.append(event)
        return -Int64(events.count)
    }

    /// The index of a provisional id's event when it is not stored yet.
    func pendingIndex(_ id: Int64) -> Int? {
        guard FinalEventIDs.isProvisional(id) else { return nil }
        let index = Int(-id) - 1
        return index >= finals.count && index < events.count ? index : nil
    }

    /// A stored event's id (a provisional one translated); nil while it is pending.
    func storedID(_ id: Int64) -> Int64? {
        guard FinalEventIDs.isProvisional(id) else { return id }
        let index = Int(-id) - 1
        return index < finals.count ? finals[index] : nil
    }

    mutating func setPeer(_ peer: Int64, ofPending index: Int) { events[index].peer = peer }

    mutating func deferRow(_ change: StagedRowChange) { spans.append(change) }

    /// The pending events were stored with ids `first...`; returns the row changes to run now.
    mutating func stored(first: Int64) -> ArraySlice<StagedRowChange> {
        finals.append(contentsOf: (0..<Int64(events.count - finals.count)).map { first + $0 })
        let due = spans[spansRun...]
        spansRun = spans.count
        return due
    }

    /// The row changes not written yet, when no event is pending (they name none): to write now.
    mutating func unwrittenRows() -> ArraySlice<StagedRowChange> {
        let due = spans[spansRun...]
        spansRun = spans.count
        return due
    }

    /// The counted events this batch has staged and not stored, in `room`, by anyone but
    /// `reader`: what its READ's reply adds to the count stored before the batch.
    func pendingCounted(in room: Int64, notBy reader: String) -> Int {
        pending.filter { $0.room == room && $0.user == nil && !$0.control && $0.by != reader && ReadMarker.counts(eventNamed: $0.name) }.count
    }

    /// Forgets what was staged after `mark`. What was stored after it, earlier jobs'
    /// events and rows too, the savepoint's rollback undid: it is pending again.
    mutating func rollBack(to mark: Mark) {
        events.removeLast(events.count - mark.events)
        if finals.count > mark.stored { finals.removeLast(finals.count - mark.stored) }
        spans.removeLast(spans.count - mark.spans)
        spansRun = min(spansRun, mark.spansRun)
        if mark.rooms < lockedRooms.count { lockedRooms.removeLast(lockedRooms.count - mark.rooms) }
        members.removeAll()
        accesses.removeAll()
        nextNotice = nil
    }
}

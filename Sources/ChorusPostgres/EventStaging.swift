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

/// A membership span change naming an event still staged: run once the event has its id.
enum StagedSpanChange {
    case open(room: Int64, user: Int64, event: Int64)
    case close(room: Int64, user: Int64?, event: Int64)
}

/// The batch's events without ids yet, the ids of those already stored, and the rooms
/// whose rows the batch locked. Provisional
/// id `-k` is the batch's k-th staged event (`FinalEventIDs`); the first `finals.count`
/// have been stored, the rest are `pending`, in order.
struct EventStaging {
    private(set) var finals: [Int64] = []
    private(set) var pending: [StagedEvent] = []
    private(set) var spans: [StagedSpanChange] = []
    /// Span changes already run, so a mark can tell which of `spans` came after it.
    private var spansRun = 0

    /// Rooms whose row this transaction has locked, in order (`PostgresStore.memberIDs`).
    private(set) var lockedRooms: [Int64] = []

    /// Where a job started: a job rolled back to its savepoint drops what it staged, and
    /// the row locks it took are released.
    struct Mark {
        let events: Int
        let spans: Int
        let rooms: Int
    }

    var mark: Mark {
        Mark(events: finals.count + pending.count, spans: spansRun + spans.count, rooms: lockedRooms.count)
    }

    /// Member lists read under those locks: no other transaction can change them until
    /// COMMIT, and this one's own changes drop them (`forgetMembers`).
    private var members: [Int64: [Int64]] = [:]

    /// The next notice moment a task update read back with the task
    /// (`PostgresStore.updateTaskReadingBack`), until the next write: `nextNoticeTime`'s answer.
    var nextNotice: Int64??

    func hasLocked(room: Int64) -> Bool { lockedRooms.contains(room) }

    mutating func locked(room: Int64) { lockedRooms.append(room) }

    func members(ofLocked room: Int64) -> [Int64]? { members[room] }

    mutating func remember(members list: [Int64], of room: Int64) { members[room] = list }

    mutating func forgetMembers(of room: Int64) { members[room] = nil }

    var finalIDs: FinalEventIDs { FinalEventIDs(finals) }

    mutating func reset() { self = EventStaging() }

    /// Returns the event's provisional id.
    mutating func stage(_ event: StagedEvent) -> Int64 {
        pending.append(event)
        return -Int64(finals.count + pending.count)
    }

    /// The index in `pending` of a provisional id not stored yet.
    func pendingIndex(_ id: Int64) -> Int? {
        guard FinalEventIDs.isProvisional(id) else { return nil }
        let index = Int(-id) - 1 - finals.count
        return index >= 0 && index < pending.count ? index : nil
    }

    /// A stored event's id (a provisional one translated); nil while it is pending.
    func storedID(_ id: Int64) -> Int64? {
        guard FinalEventIDs.isProvisional(id) else { return id }
        let index = Int(-id) - 1
        return index < finals.count ? finals[index] : nil
    }

    mutating func setPeer(_ peer: Int64, ofPending index: Int) { pending[index].peer = peer }

    mutating func deferSpan(_ change: StagedSpanChange) { spans.append(change) }

    /// The pending events were stored with ids `first...`; returns the span changes to run now.
    mutating func stored(first: Int64) -> [StagedSpanChange] {
        finals.append(contentsOf: (0..<Int64(pending.count)).map { first + $0 })
        pending.removeAll(keepingCapacity: true)
        let due = spans
        spansRun += spans.count
        spans.removeAll()
        return due
    }

    /// Forgets what was staged after `mark` (the database's savepoint undid what was stored).
    mutating func rollBack(to mark: Mark) {
        if mark.events < finals.count {
            finals.removeLast(finals.count - mark.events)
            pending.removeAll()
        } else {
            pending.removeLast(finals.count + pending.count - mark.events)
        }
        let keep = max(0, mark.spans - spansRun)
        if keep < spans.count { spans.removeLast(spans.count - keep) }
        spansRun = min(spansRun, mark.spans)
        if mark.rooms < lockedRooms.count { lockedRooms.removeLast(lockedRooms.count - mark.rooms) }
        members.removeAll()
        nextNotice = nil
    }
}

import ChorusCore
import ChorusStore
import Foundation
import Testing

/// The event log, SYNC's pages, notices kept for later, DMs and STATS, on every engine.
@Suite struct EventLogStoreTests {
    /// Event ids grow strictly in commit order, and the newest is the log's last id.
    @Test(arguments: StoreEngine.all) func eventIDsGrow(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        #expect(try store.run { try $0.lastEventID() } == 0)
        var ids: [Int64] = []
        for n in 0..<5 {
            ids.append(try store.run { try $0.appendEvent(room: 1, user: nil, name: "message", by: "alice", at: "t", payload: "{}", text: "\(n)") })
        }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try store.run { try $0.lastEventID() } == ids.last)
    }

    /// SYNC's page is exactly what the definition says: every event after `after` that is
    /// addressed to the user (personal, or a DM either way) or belongs to a room while the
    /// user was in it (spans include the events that open and close them), in id order,
    /// `limit` at most. The definition is worked out here from what was written, on a
    /// random mix of rooms, personal events, DMs, and members coming and going.
    @Test(arguments: StoreEngine.all) func syncPagesMatchTheirDefinition(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let log = try store.run { db in
            var mix = FixedSequence(seed: 7)
            var log = WrittenLog()
            var open: Set<[Int64]> = []
            let users = try ["ann", "ben", "cat"].map { try db.createAccount(name: $0, passwordHash: "x", created: "t").id }
            let rooms = try ["Flat", "Den", "Attic"].enumerated().map { try db.createRoom(name: $1, ownerID: users[$0], created: "t") }
            log.users = users
            for _ in 0..<3_000 {
                let who = mix.below(3)
                let user = users[who], room = rooms[mix.below(3)], peer = users[(who + 1) % 3]
                switch mix.below(10) {
                case 0:
                    let event = try db.appendEvent(room: room, user: nil, name: "member", by: nil, at: "t", payload: "{}", text: "")
                    log.events.append(.init(id: event, room: room, user: nil, peer: nil))
                    if open.remove([room, user]) != nil {
                        try db.closeMembership(room: room, user: user, atEvent: event)
                        log.close(room: room, user: user, at: event)
                    } else {
                        open.insert([room, user])
                        try db.openMembership(room: room, user: user, fromEvent: event)
                        log.spans.append(.init(room: room, user: user, first: event, last: nil))
                    }
                case 1:
                    let event = try db.appendEvent(room: nil, user: user, name: "task.added", by: nil, at: "t", payload: "{}", text: "")
                    log.events.append(.init(id: event, room: nil, user: user, peer: nil))
                case 2:
                    let event = try db.appendEvent(room: nil, user: user, name: "dm", by: nil, at: "t", payload: "{}", text: "")
                    try db.setEventPeer(event: event, peer: peer)
                    log.events.append(.init(id: event, room: nil, user: user, peer: peer))
                default:
                    let event = try db.appendEvent(room: room, user: nil, name: "message", by: nil, at: "t", payload: "{}", text: "")
                    log.events.append(.init(id: event, room: room, user: nil, peer: nil))
                }
            }
            return log
        }
        let newest = try #require(log.events.last?.id)
        var pages = 0
        for user in log.users {
            for after in [0, 1, newest / 3, newest / 2, newest - 5, newest] {
                for limit in [1, 7, 101, 501] {
                    let expected = log.page(for: user, after: after, limit: limit)
                    let got = try store.run { try $0.events(forUser: user, after: after, limit: limit).map(\.id) }
                    #expect(got == expected, "user \(user) after \(after) limit \(limit)")
                    if !expected.isEmpty { pages += 1 }
                }
            }
        }
        #expect(pages > 50, "the mix gave most users something to see")
    }

    /// Notices kept for someone away come back once, oldest first, as they were stored.
    @Test(arguments: StoreEngine.all) func pendingNoticesAreTakenOnce(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let events = try store.run { db in
            let first = try db.appendEvent(room: home.room, user: nil, name: "task.overdue", by: nil, at: "t1", payload: #"{"a":1}"#, text: "late")
            let second = try db.appendEvent(room: nil, user: home.bob, name: "task.reminder", by: "alice", at: "t2", payload: "{}", text: "soon")
            try db.addPendingNotice(user: home.bob, event: second)
            try db.addPendingNotice(user: home.bob, event: first)
            return (first, second)
        }
        #expect(try store.run { try $0.takePendingNotices(user: home.bob) } == [
            StoredEvent(id: events.0, room: home.room, name: "task.overdue", by: nil, at: "t1", payload: #"{"a":1}"#, text: "late"),
            StoredEvent(id: events.1, room: nil, name: "task.reminder", by: "alice", at: "t2", payload: "{}", text: "soon"),
        ])
        #expect(try store.run { try $0.takePendingNotices(user: home.bob) } == [])
        #expect(try store.run { try $0.takePendingNotices(user: home.alice) } == [])
    }

    /// DMs get ids of their own, and a DM event reaches both ends by SYNC.
    @Test(arguments: StoreEngine.all) func directMessages(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let (first, second, event) = try store.run { db in
            let first = try db.insertDM(sender: home.alice, recipient: home.bob, text: "hi", at: "t")
            let second = try db.insertDM(sender: home.bob, recipient: home.alice, text: "hey", at: "t")
            let event = try db.appendEvent(room: nil, user: home.bob, name: "dm", by: "alice", at: "t", payload: "{}", text: "hi")
            try db.setEventPeer(event: event, peer: home.alice)
            return (first, second, event)
        }
        #expect(second > first)
        #expect(try store.run { try $0.events(forUser: home.bob, after: 0, limit: 10).map(\.id) } == [event])
        #expect(try store.run { try $0.events(forUser: home.alice, after: 0, limit: 10).map(\.id) } == [event])
    }

    /// STATS counts each member's finished chores and points, all time and this week, and
    /// their open ones.
    @Test(arguments: StoreEngine.all) func memberStats(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            for (title, points, daysAgo) in [("a", 2, 1.0), ("b", 3, 20.0), ("c", 5, nil as Double?)] {
                var draft = TaskDraft(room: home.room, owner: nil, title: title, creator: home.alice, created: "t")
                draft.points = points
                draft.assignee = home.bob
                let id = try db.insertTask(draft)
                if let daysAgo, var record = try db.task(id: id) {
                    record.finish(by: (home.bob, "bob"), at: Timestamp.rfc3339(now.addingTimeInterval(-daysAgo * 86400)))
                    try db.updateTask(TaskLifecycle.readyToStore(record))
                }
            }
        }
        let stats = try store.run { try $0.memberStats(room: home.room, since: RoomProgress.windowStart(now: now), now: now) }
        #expect(stats.map(\.name) == ["alice", "bob"])
        let bob = try #require(stats.last)
        #expect(bob.done == 2 && bob.doneWeek == 1 && bob.points == 5 && bob.pointsWeek == 2 && bob.open == 1 && bob.overdue == 0)
        #expect(stats.first?.done == 0 && stats.first?.open == 0)
    }
}

/// What `syncPagesMatchTheirDefinition` wrote, and SYNC's definition over it.
struct WrittenLog: Sendable {
    struct Written: Sendable { let id: Int64, room: Int64?, user: Int64?, peer: Int64? }
    struct Span: Sendable {
        let room: Int64, user: Int64, first: Int64
        var last: Int64?
    }
    var users: [Int64] = []
    var events: [Written] = []
    var spans: [Span] = []

    mutating func close(room: Int64, user: Int64, at event: Int64) {
        for index in spans.indices where spans[index].room == room && spans[index].user == user && spans[index].last == nil {
            spans[index].last = event
        }
    }

    func page(for user: Int64, after: Int64, limit: Int) -> [Int64] {
        let seen = events.filter { event in
            guard event.id > after else { return false }
            if event.user == user || event.peer == user { return true }
            guard event.user == nil, let room = event.room else { return false }
            return spans.contains { $0.user == user && $0.room == room && event.id >= $0.first && ($0.last.map { event.id <= $0 } ?? true) }
        }
        return seen.prefix(limit).map(\.id)
    }
}

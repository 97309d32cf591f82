import ChorusCore
import ChorusStore
import Foundation
import Testing

/// Tasks, their roll-ups and the scheduler's notice times, on every engine.
@Suite struct TaskStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// A parent's progress is computed from its subtasks, weighted by points.
    @Test(arguments: StoreEngine.all) func parentProgressRollsUp(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let (parent, kitchen) = try store.run { db in
            let parent = try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "Clean", creator: home.alice, created: "t"))
            var first = TaskDraft(room: home.room, owner: nil, title: "Kitchen", creator: home.alice, created: "t")
            first.parent = parent
            first.points = 3
            let kitchen = try db.insertTask(first)
            var second = first
            second.title = "Bath"
            second.points = 1
            _ = try db.insertTask(second)
            return (parent, kitchen)
        }
        try store.run { db in
            guard var record = try db.task(id: kitchen) else { return }
            record.finish(by: (home.alice, "alice"), at: "2026-11-30T00:00:00Z")
            try db.updateTask(TaskLifecycle.readyToStore(record))
        }
        #expect(try store.run { try $0.task(id: parent)?.computedProgress } == 75)
        #expect(try store.run { try $0.task(id: kitchen)?.computedProgress } == nil)
        #expect(try store.run { try $0.subtasks(of: parent).map(\.title).sorted() } == ["Bath", "Kitchen"])
    }

    /// A room's progress bar and open count agree with the definition over the tasks
    /// themselves (`RoomProgress.percent(of:)`): top-level tasks open or finished in the
    /// last week, weighted by points, parents by their subtasks. Checked on a random mix,
    /// and in a second room whose tasks are worth no points.
    @Test(arguments: StoreEngine.all) func roomProgressMatchesItsDefinition(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let now = self.now
        for round in 0..<2 {
            let room = round == 0 ? home.room
                : try store.run { try $0.createRoom(name: "Pointless", ownerID: home.alice, created: "t") }
            try store.run { db in
                var mix = FixedSequence(seed: 11 + UInt64(round))
                var parents: [Int64] = []
                for _ in 0..<300 {
                    var draft = TaskDraft(room: room, owner: nil, title: "chore", creator: home.alice, created: "t")
                    draft.points = round == 0 ? mix.below(4) : 0
                    if !parents.isEmpty && mix.below(3) == 0 { draft.parent = parents[mix.below(parents.count)] }
                    let id = try db.insertTask(draft)
                    if draft.parent == nil && mix.below(4) == 0 { parents.append(id) }
                    guard var record = try db.task(id: id) else { continue }
                    switch mix.below(4) {
                    case 0: record.finish(by: (home.alice, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-Double(mix.below(14)) * 86400)))
                    case 1: record.progress = mix.below(101)
                    default: break
                    }
                    try db.updateTask(TaskLifecycle.readyToStore(record))
                }
            }
            let weekAgo = Timestamp.rfc3339(now.addingTimeInterval(-7 * 86400))
            let counted = try store.run { try $0.tasks(in: .room(room), done: nil) }
                .filter { $0.parent == nil && (!$0.done || ($0.doneAt ?? "") >= weekAgo) }
            let shown = try #require(try store.run { try $0.room(id: room, forUser: home.alice, now: now) })
            #expect(shown.progress == RoomProgress.percent(of: counted), "round \(round)")
            #expect(shown.open == counted.filter { !$0.done }.count)
            #expect(counted.count > 100 && shown.progress > 0 && shown.progress < 100, "a mix worth checking")
        }
    }

    /// Listings by scope: a room's, a user's personal ones, and "mine" (assigned to me in
    /// my rooms plus my unassigned personal tasks); open, done or both; soonest due first
    /// with undated ones last; and finished ones only since a time when asked.
    @Test(arguments: StoreEngine.all) func listingsByScope(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            func add(_ title: String, room: Int64?, owner: Int64?, assignee: Int64?, due: String?, doneAt: String? = nil) throws {
                var draft = TaskDraft(room: room, owner: owner, title: title, creator: home.alice, created: "t")
                draft.assignee = assignee
                draft.due = due
                let id = try db.insertTask(draft)
                // Saved once after adding, as TASK ADD does.
                guard var record = try db.task(id: id) else { return }
                if let doneAt { record.finish(by: (home.alice, "alice"), at: doneAt) }
                try db.updateTask(TaskLifecycle.readyToStore(record))
            }
            try add("undated", room: home.room, owner: nil, assignee: home.bob, due: nil)
            try add("later", room: home.room, owner: nil, assignee: home.bob, due: "2026-12-20")
            try add("sooner", room: home.room, owner: nil, assignee: nil, due: "2026-12-10")
            try add("old", room: home.room, owner: nil, assignee: home.bob, due: nil, doneAt: "2026-01-01T00:00:00Z")
            try add("recent", room: home.room, owner: nil, assignee: home.bob, due: nil, doneAt: "2026-11-29T00:00:00Z")
            try add("bob's own", room: nil, owner: home.bob, assignee: nil, due: nil)
            try add("alice's own", room: nil, owner: home.alice, assignee: nil, due: nil)
            // A room of bob's that alice is not in.
            let other = try db.createRoom(name: "Bob's studio", ownerID: home.bob, created: "t")
            try add("studio", room: other, owner: nil, assignee: home.bob, due: nil)
        }
        func titles(_ scope: TaskScope, _ done: Bool?, since: String? = nil) throws -> [String] {
            try store.run { try $0.tasks(in: scope, done: done, finishedSince: since).map(\.title) }
        }
        #expect(try titles(.room(home.room), false) == ["sooner", "later", "undated"])
        #expect(try titles(.room(home.room), true).sorted() == ["old", "recent"])
        #expect(try titles(.room(home.room), nil, since: "2026-11-01T00:00:00Z").sorted() == ["later", "recent", "sooner", "undated"])
        #expect(try titles(.personal(user: home.bob), nil) == ["bob's own"])
        #expect(try titles(.mine(user: home.bob), false) == ["later", "undated", "bob's own", "studio"])
        // What alice may see of bob's: his tasks in the rooms they share, never his own.
        #expect(try titles(.sharedWith(user: home.bob, viewer: home.alice), false) == ["later", "undated"])
        #expect(try titles(.sharedWith(user: home.bob, viewer: home.bob), false) == ["later", "undated", "studio"])
        #expect(try titles(.sharedWith(user: home.bob, viewer: home.alice), nil, since: "2026-11-01T00:00:00Z")
                .sorted() == ["later", "recent", "undated"])
        let studio = try store.run { db in try db.roomIDs(named: "bob's studio", forUser: home.bob) }
        #expect(try store.run { db in try db.sharedRoomIDs(of: home.alice, and: home.bob) } == [home.room])
        #expect(try store.run { db in try db.sharedRoomIDs(of: home.bob, and: home.bob) } == [home.room] + studio)
        #expect(try store.run { db in try db.sharedRoomIDs(of: home.alice, and: 0) } == [])
        #expect(try titles(.mine(user: home.alice), false) == ["alice's own"])
    }

    /// The scheduler's moments: the earliest owed notice, what is due at a time, marking
    /// one sent, and a sent one owed again only once its moment moves.
    @Test(arguments: StoreEngine.all) func noticeTimes(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let due = Date(timeIntervalSince1970: 1_800_000_000), remind = due.addingTimeInterval(3600)
        let dueAt: Int64 = 1_800_000_000, remindAt = dueAt + 3600, laterAt = dueAt + 7200
        let (bins, dishes) = try store.run { db in
            var first = TaskDraft(room: home.room, owner: nil, title: "Bins", creator: home.alice, created: "t")
            first.due = Timestamp.rfc3339(due)
            var second = TaskDraft(room: home.room, owner: nil, title: "Dishes", creator: home.alice, created: "t")
            second.remind = Timestamp.rfc3339(remind)
            var finished = TaskDraft(room: home.room, owner: nil, title: "Done already", creator: home.alice, created: "t")
            finished.due = Timestamp.rfc3339(due.addingTimeInterval(-86400))
            let ids = (try db.insertTask(first), try db.insertTask(second), try db.insertTask(finished))
            for id in [ids.0, ids.1, ids.2] {
                guard var record = try db.task(id: id) else { continue }
                if id == ids.2 { record.finish(by: (home.alice, "alice"), at: "t") }
                try db.updateTask(TaskLifecycle.readyToStore(record))
            }
            return (ids.0, ids.1)
        }
        #expect(try store.run { try $0.nextNoticeTime() } == dueAt)
        #expect(try store.run { try $0.dueNotices(.overdue, now: dueAt - 1) } == [])
        #expect(try store.run { try $0.dueNotices(.overdue, now: dueAt) } == [bins])
        #expect(try store.run { try $0.dueNotices(.reminder, now: remindAt) } == [dishes])
        try store.run { try $0.markNoticeSent(.overdue, task: bins) }
        #expect(try store.run { try $0.dueNotices(.overdue, now: dueAt) } == [])
        #expect(try store.run { try $0.nextNoticeTime() } == remindAt)
        // Saved unchanged: still sent. Moved: owed again at its new moment.
        try store.run { db in if let record = try db.task(id: bins) { try db.updateTask(TaskLifecycle.readyToStore(record)) } }
        #expect(try store.run { try $0.dueNotices(.overdue, now: dueAt) } == [])
        let later = Date(timeIntervalSince1970: Double(laterAt))
        try store.run { db in
            guard var record = try db.task(id: bins) else { return }
            TaskLifecycle.setDue(&record, to: Timestamp.rfc3339(later))
            try db.updateTask(TaskLifecycle.readyToStore(record))
        }
        #expect(try store.run { try $0.dueNotices(.overdue, now: laterAt) } == [bins])
    }

    /// A task past its plan's end at 100 % is no candidate for a behind notice: the
    /// store keeps the moment the domain worked out (none), and falling back re-arms it.
    @Test(arguments: StoreEngine.all) func noBehindNoticeAtFullProgress(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let later: Int64 = 1_900_000_000
        let essay = try store.run { db in
            var draft = TaskDraft(room: home.room, owner: nil, title: "Essay", creator: home.alice, created: "t")
            draft.start = "2026-11-28"
            draft.estimate = 2
            let id = try db.insertTask(draft)
            guard var record = try db.task(id: id) else { return id }
            record.progress = 100
            try db.updateTask(TaskLifecycle.readyToStore(record))
            return id
        }
        #expect(try store.run { try $0.dueNotices(.behind, now: later) } == [])
        #expect(try store.run { try $0.nextNoticeTime() } == nil)
        try store.run { db in
            guard var record = try db.task(id: essay) else { return }
            record.progress = 60
            try db.updateTask(TaskLifecycle.readyToStore(record))
        }
        #expect(try store.run { try $0.dueNotices(.behind, now: later) } == [essay])
    }
}

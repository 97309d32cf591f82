import ChorusCore
import ChorusStore
import Foundation
import Testing

/// Calendar links and task revisions (CONTRACT §9), on every engine.
@Suite struct CalendarFeedStoreTests {
    /// One link per user and scope: replacing ends the old digest, unlinking ends it, and
    /// the `me` link and a room's are separate.
    @Test(arguments: StoreEngine.all) func linksAreReplacedAndEnded(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        #expect(try store.run { try $0.replaceCalendarLink(user: home.alice, room: home.room, digest: "d1", created: "t") } == false)
        #expect(try store.run { try $0.replaceCalendarLink(user: home.alice, room: nil, digest: "m1", created: "t") } == false)
        let first = try #require(try store.run { try $0.calendarLink(digest: "d1") })
        #expect(first.owner == home.alice && first.ownerName == "alice" && first.room == home.room)
        #expect(first.roomName == "Flat 2B" && first.ownerIsMember == true && !first.ownerDisabled && first.lastBody == nil)
        #expect(try store.run { try $0.calendarLink(digest: "m1") }?.ownerIsMember == nil)

        #expect(try store.run { try $0.replaceCalendarLink(user: home.alice, room: home.room, digest: "d2", created: "t") } == true)
        #expect(try store.run { try $0.calendarLink(digest: "d1") } == nil)
        #expect(try store.run { try $0.calendarLink(digest: "d2") }?.room == home.room)
        #expect(try store.run { try $0.calendarLink(digest: "m1") } != nil)

        #expect(try store.run { try $0.deleteCalendarLink(user: home.alice, room: home.room) } == true)
        #expect(try store.run { try $0.deleteCalendarLink(user: home.alice, room: home.room) } == false)
        #expect(try store.run { try $0.calendarLink(digest: "d2") } == nil)
        #expect(try store.run { try $0.replaceCalendarLink(user: home.alice, room: home.room, digest: "d3", created: "t") } == false)
        #expect(try store.run { try $0.deleteCalendarLinks(user: home.alice) } == 2)
        #expect(try store.run { try $0.calendarLink(digest: "m1") } == nil)
    }

    /// What a request needs to decide: membership and the disabled flag as they are now,
    /// and a deleted room takes its links with it.
    @Test(arguments: StoreEngine.all) func linkFactsFollowTheOwner(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            _ = try db.replaceCalendarLink(user: home.bob, room: home.room, digest: "b1", created: "t")
            _ = try db.replaceCalendarLink(user: home.bob, room: nil, digest: "bm", created: "t")
        }
        try store.run { try $0.removeMember(room: home.room, user: home.bob) }
        #expect(try store.run { try $0.calendarLink(digest: "b1") }?.ownerIsMember == false)
        _ = try store.run { try $0.setDisabled(name: "bob", true) }
        #expect(try store.run { try $0.calendarLink(digest: "bm") }?.ownerDisabled == true)
        _ = try store.run { try $0.replaceCalendarLink(user: home.alice, room: home.room, digest: "a1", created: "t") }
        try store.run { try $0.deleteRoom(home.room) }
        #expect(try store.run { try $0.calendarLink(digest: "a1") } == nil)
        #expect(try store.run { try $0.calendarLink(digest: "b1") } == nil)
    }

    @Test(arguments: StoreEngine.all) func theLastBodyIsKept(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            _ = try db.replaceCalendarLink(user: home.alice, room: nil, digest: "m1", created: "t")
            let held = try db.recordCalendarBody(link: "m1", bodyDigest: "abc", at: 1_796_000_000, replacing: nil)
            #expect(held?.digest == "abc")
        }
        let body = try #require(try store.run { try $0.calendarLink(digest: "m1") }?.lastBody)
        #expect(body.digest == "abc" && body.at == Date(timeIntervalSince1970: 1_796_000_000))
        // A request that read the body before "abc" was recorded does not replace it: the
        // link keeps "abc" and its time, and says so.
        let late = try store.run { try $0.recordCalendarBody(link: "m1", bodyDigest: "abc", at: 1_796_000_500, replacing: nil) }
        #expect(late?.digest == "abc" && late?.at == Date(timeIntervalSince1970: 1_796_000_000))
        let changed = try store.run { try $0.recordCalendarBody(link: "m1", bodyDigest: "def", at: 1_796_000_900, replacing: "abc") }
        #expect(changed?.digest == "def" && changed?.at == Date(timeIntervalSince1970: 1_796_000_900))
        // A new address starts with no body.
        _ = try store.run { try $0.replaceCalendarLink(user: home.alice, room: nil, digest: "m2", created: "t") }
        #expect(try store.run { try $0.calendarLink(digest: "m2") }?.lastBody == nil)
    }

    /// SEQUENCE: each field the feed shows bumps the revision once per real change (an
    /// update that writes the same value is none); bookkeeping never does.
    @Test(arguments: StoreEngine.all) func revisionMovesWithShownFieldsOnly(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let id = try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            var draft = TaskDraft(room: home.room, owner: nil, title: "Trash", creator: home.alice, created: "2026-11-30T00:00:00Z")
            draft.due = "2026-12-05"
            return try db.insertTask(draft)
        }
        func revision() throws -> (Int, Int64?) {
            let found = try store.run { try $0.feedTasks(in: .room(home.room), finishedSince: "2000-01-01T00:00:00Z") }
            let task = try #require(found.first { $0.task.id == id })
            return (task.revision, task.changedAt)
        }
        func edit(_ change: @escaping @Sendable (inout TaskRecord) -> Void) throws {
            try store.run { db in
                guard var record = try db.task(id: id) else { return }
                change(&record)
                try db.updateTask(TaskLifecycle.readyToStore(record))
            }
        }
        #expect(try revision().0 == 0)
        #expect(try revision().1 == nil)
        let shown: [@Sendable (inout TaskRecord) -> Void] = [
            { $0.title = "Trash out" }, { $0.notes = "bins" }, { $0.due = "2026-12-06" }, { $0.start = "2026-12-01" },
            { $0.progress = 40 }, { $0.assign(to: (home.bob, "bob")) }, { $0.estimate = 2 },
            { $0.finish(by: (home.bob, "bob"), at: "2026-12-02T00:00:00Z") },
        ]
        for (index, change) in shown.enumerated() {
            try edit(change)
            #expect(try revision().0 == index + 1, "change \(index)")
        }
        #expect(try revision().1 != nil)
        // The same values again, and bookkeeping: no change.
        try edit { _ in }
        try edit { $0.points = 5 }
        try edit { $0.remind = "2026-12-04" }
        try store.run { try $0.markNoticeSent(.overdue, task: id) }
        #expect(try revision().0 == shown.count)
        // A subtask's coming, change and going move its parent (the roll-up it shows).
        let sub = try store.run { db in
            var draft = TaskDraft(room: home.room, owner: nil, title: "Bag", creator: home.alice, created: "t")
            draft.parent = id
            return try db.insertTask(draft)
        }
        #expect(try revision().0 == shown.count + 1)
        try store.run { db in
            guard var record = try db.task(id: sub) else { return }
            record.progress = 50
            try db.updateTask(TaskLifecycle.readyToStore(record))
        }
        #expect(try revision().0 == shown.count + 2)
        try store.run { try $0.deleteTask(id: sub) }
        #expect(try revision().0 == shown.count + 3)
        // The room's name is in every event: a rename moves them all.
        try store.run { try $0.renameRoom(home.room, to: "Flat 3C") }
        #expect(try revision().0 == shown.count + 4)
    }

    /// The `me` feed: tasks assigned to the user in rooms they are in now, and their own
    /// personal ones; only dated ones, done ones only since the given time.
    @Test(arguments: StoreEngine.all) func feedTasksOfMe(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            for (title, assignee, due) in [("Mine", home.bob, "2026-12-05"), ("Alice's", home.alice, "2026-12-05"),
                                           ("Undated", home.bob, nil)] as [(String, Int64, String?)] {
                var draft = TaskDraft(room: home.room, owner: nil, title: title, creator: home.alice, created: "t")
                draft.assignee = assignee
                draft.due = due
                _ = try db.insertTask(draft)
            }
            var personal = TaskDraft(room: nil, owner: home.bob, title: "Dentist", creator: home.bob, created: "t")
            personal.due = "2026-12-07"
            _ = try db.insertTask(personal)
        }
        func titles() throws -> [String] {
            try store.run { try $0.feedTasks(in: .mine(user: home.bob), finishedSince: "2000-01-01T00:00:00Z").map(\.task.title) }
        }
        #expect(try titles() == ["Mine", "Dentist"])
        try store.run { try $0.removeMember(room: home.room, user: home.bob) }
        #expect(try titles() == ["Dentist"])
    }
}

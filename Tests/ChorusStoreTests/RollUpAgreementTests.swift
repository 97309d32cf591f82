import ChorusCore
import ChorusStore
import Foundation
import Testing

/// Where the store computes a domain rule for speed, its answer is the domain function's:
/// a parent's progress (`SubtaskProgress`) and the room bar (`RoomProgress`). Also the
/// rules the store only writes: reopening and re-armed notices. On every engine; each
/// case runs as one unit of work and the checks come after it.
@Suite struct RollUpAgreementTests {
    let now = Date(timeIntervalSince1970: 1_796_040_000)

    /// Parents with 0-6 subtasks of 0-4 points, any progress, some done: the store and
    /// `SubtaskProgress.percent(of:)` agree on every one, rounding included.
    @Test(arguments: StoreEngine.all) func parentProgressAgreesWithTheDomain(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let checked = try store.run { db in
            var dice = FixedSequence(seed: 7)
            var parents: [Int64] = []
            for _ in 0..<150 {
                let parent = try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "parent", creator: home.alice, created: "t"))
                parents.append(parent)
                for _ in 0..<dice.below(7) {
                    var draft = TaskDraft(room: home.room, owner: nil, title: "sub", creator: home.alice, created: "t")
                    draft.parent = parent
                    draft.points = dice.below(5)
                    guard var record = try db.task(id: try db.insertTask(draft)) else { continue }
                    record.progress = dice.below(101)
                    if dice.below(3) == 0 { record.finish(by: (home.alice, "alice"), at: "2026-11-30T00:00:00Z") }
                    try db.updateTask(TaskLifecycle.readyToStore(record))
                }
            }
            return try parents.map { parent in
                let subtasks = try db.subtasks(of: parent)
                return (parent: parent, stored: try db.task(id: parent)?.computedProgress, domain: SubtaskProgress.percent(of: subtasks),
                        subtasks: subtasks.count, zeroPoints: !subtasks.isEmpty && subtasks.allSatisfy { $0.points == 0 })
            }
        }
        for row in checked {
            #expect(row.stored == row.domain, "parent #\(row.parent)")
        }
        let withSubtasks = checked.filter { $0.subtasks > 0 }.count
        #expect(withSubtasks > 100 && withSubtasks < 150 && checked.contains { $0.zeroPoints }, "a mix worth checking")
    }

    /// The bar and open count the store sums are `RoomProgress.percent(of:now:)` over the
    /// room's tasks, with tasks finished on both sides of the week's edge, to the second.
    @Test(arguments: StoreEngine.all) func roomBarAgreesWithTheDomain(_ engine: StoreEngine) throws {
        let now = self.now
        for round in 0..<4 {
            let store = try StoreFixture(engine)
            let home = try store.household()
            let (shown, tasks) = try store.run { db in
                var dice = FixedSequence(seed: 3 + UInt64(round))
                var parents: [Int64] = []
                for _ in 0..<120 {
                    var draft = TaskDraft(room: home.room, owner: nil, title: "chore", creator: home.alice, created: "t")
                    draft.points = round == 3 ? 0 : dice.below(4)
                    if !parents.isEmpty && dice.below(3) == 0 { draft.parent = parents[dice.below(parents.count)] }
                    let id = try db.insertTask(draft)
                    if draft.parent == nil && dice.below(4) == 0 { parents.append(id) }
                    guard var record = try db.task(id: id) else { continue }
                    switch dice.below(5) {
                    case 0: record.finish(by: (home.alice, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-Double(dice.below(14)) * 86400)))
                    case 1: record.finish(by: (home.alice, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-RoomProgress.window + Double(dice.below(3) - 1))))
                    case 2: record.progress = dice.below(101)
                    default: break
                    }
                    try db.updateTask(TaskLifecycle.readyToStore(record))
                }
                return (try db.room(id: home.room, forUser: home.alice, now: now), try db.tasks(in: .room(home.room), done: nil))
            }
            let room = try #require(shown)
            #expect(room.progress == RoomProgress.percent(of: tasks, now: now), "round \(round)")
            let since = RoomProgress.windowStart(now: now)
            #expect(room.open == tasks.filter { RoomProgress.counts($0, since: since) && !$0.done }.count)
            #expect(room.progress > 0 && room.progress < 100, "a mix worth checking")
        }
    }

    /// STATS's week is the bar's: handed `RoomProgress.windowStart`, each engine counts a
    /// task finished at the window's start or a second after it as this week's, and one
    /// finished a second before it as older, in done and points alike, as the bar does.
    @Test(arguments: StoreEngine.all) func statsWeekIsTheBarsWeek(_ engine: StoreEngine) throws {
        let now = self.now
        let since = RoomProgress.windowStart(now: now)
        let store = try StoreFixture(engine)
        let home = try store.household()
        let (stats, shown, tasks) = try store.run { db in
            try db.addMember(room: home.room, user: home.bob, role: .member, joined: "t")
            for (offset, points) in [(-1.0, 1), (0.0, 2), (1.0, 4)] {
                var draft = TaskDraft(room: home.room, owner: nil, title: "chore", creator: home.alice, created: "t")
                draft.points = points
                guard var record = try db.task(id: try db.insertTask(draft)) else { continue }
                record.finish(by: (home.bob, "bob"), at: Timestamp.rfc3339(now.addingTimeInterval(-RoomProgress.window + offset)))
                try db.updateTask(TaskLifecycle.readyToStore(record))
            }
            var open = TaskDraft(room: home.room, owner: nil, title: "open", creator: home.alice, created: "t")
            open.points = 1
            _ = try db.insertTask(open)
            return (try db.memberStats(room: home.room, since: since, now: now), try db.room(id: home.room, forUser: home.alice, now: now),
                    try db.tasks(in: .room(home.room), done: nil))
        }
        let bob = try #require(stats.first { $0.name == "bob" })
        #expect(bob.done == 3 && bob.points == 7)
        #expect(bob.doneWeek == 2 && bob.pointsWeek == 6)
        let counted = tasks.filter { $0.done && RoomProgress.counts($0, since: since) }
        #expect(counted.count == bob.doneWeek && counted.map(\.points).reduce(0, +) == bob.pointsWeek)
        #expect(try #require(shown).progress == RoomProgress.percent(of: tasks, now: now))
        #expect(try #require(shown).progress == 86, "6 points at 100 %, 1 at 0 %; the task a second too old left out")
    }

    /// An overdue notice is a candidate on its own second, on both engines: the stored
    /// moment is the domain's (`noticeTimes`) and the query compares it with now inclusively,
    /// while `TaskTiming.isOverdue` says overdue only past that second. Why the scheduler
    /// does not ask `isOverdue` again (ARCHITECTURE.md, "What still lives in SQL").
    @Test(arguments: StoreEngine.all) func overdueIsACandidateOnItsOwnSecond(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let (id, dueAt) = try store.run { db in
            let id = try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "Bins", creator: home.alice, created: "t"))
            guard var task = try db.task(id: id) else { return (id, nil as Int64?) }
            TaskLifecycle.setDue(&task, to: "2026-11-20")
            let ready = TaskLifecycle.readyToStore(task)
            try db.updateTask(ready)
            return (id, ready.record.notices.dueAt)
        }
        let second = try #require(dueAt)
        #expect(try store.run { try $0.dueNotices(.overdue, now: second - 1) } == [])
        #expect(try store.run { try $0.dueNotices(.overdue, now: second) } == [id])
        let task = try #require(try store.run { try $0.task(id: id) })
        #expect(!TaskTiming(now: Date(timeIntervalSince1970: Double(second))).isOverdue(task))
        #expect(TaskTiming(now: Date(timeIntervalSince1970: Double(second) + 0.5)).isOverdue(task))
    }

    /// The store keeps what the domain decided: the progress a reopened task gets back,
    /// and a sent notice owed again only once its time moves.
    @Test(arguments: StoreEngine.all) func reopeningAndReArmingSurviveTheStore(_ engine: StoreEngine) throws {
        let store = try StoreFixture(engine)
        let home = try store.household()
        let clock = Int64(now.timeIntervalSince1970)
        let id = try store.run { db in try db.insertTask(TaskDraft(room: home.room, owner: nil, title: "Bins", creator: home.alice, created: "t")) }
        /// Changes the stored task as `change` says, stores it as the domain readies it, and
        /// tells which tasks now owe an overdue notice.
        func edit(_ change: @escaping @Sendable (inout TaskRecord) throws -> Void) throws -> [Int64] {
            try store.run { db in
                guard var task = try db.task(id: id) else { return [] }
                try change(&task)
                try db.updateTask(TaskLifecycle.readyToStore(task))
                return try db.dueNotices(.overdue, now: clock)
            }
        }
        #expect(try edit { $0.progress = 40; $0.due = "2026-11-01" } == [id])
        try store.run { db in try db.markNoticeSent(.overdue, task: id) }
        #expect(try edit { $0.title = "Recycling" } == [])
        #expect(try edit { TaskLifecycle.setDue(&$0, to: "2026-11-02") } == [id])
        _ = try edit { $0.finish(by: (home.alice, "alice"), at: "2026-11-30T00:00:00Z") }
        #expect(try store.run { try $0.task(id: id)?.effectiveProgress } == 100)
        _ = try edit { $0 = try TaskLifecycle.reopen($0) }
        let back = try #require(try store.run { try $0.task(id: id) })
        #expect(!back.done && back.progress == 40)
    }
}

extension RollUpAgreementTests {
    /// The edges, in every read that rolls up (one task, a room's listing, a parent's
    /// subtasks, TASKS mine) and in the room bar: a parent without subtasks keeps its own
    /// progress, all subtasks done is 100, subtasks worth no points average plainly, and a
    /// roll-up is one level deep (a subtask with subtasks of its own, which only the store
    /// can make, counts its stored progress in its parent, and rolls its own up).
    @Test(arguments: StoreEngine.all) func rollUpEdgesAgreeInEveryRead(_ engine: StoreEngine) throws {
        let now = self.now
        let store = try StoreFixture(engine)
        let home = try store.household()
        let (expected, reads, room, tasks) = try store.run { db in
            func add(_ title: String, parent: Int64? = nil, points: Int = 1, progress: Int = 0, done: Bool = false) throws -> Int64 {
                var draft = TaskDraft(room: home.room, owner: nil, title: title, creator: home.alice, created: "t")
                draft.parent = parent
                draft.points = points
                draft.assignee = home.alice
                let id = try db.insertTask(draft)
                guard var record = try db.task(id: id) else { return id }
                record.progress = progress
                if done { record.finish(by: (home.alice, "alice"), at: Timestamp.rfc3339(now)) }
                try db.updateTask(TaskLifecycle.readyToStore(record))
                return id
            }
            let alone = try add("no subtasks", progress: 30)
            let allDone = try add("all done")
            for points in [0, 2, 5] { _ = try add("done part", parent: allDone, points: points, progress: 10, done: true) }
            let pointless = try add("no points")
            _ = try add("a", parent: pointless, points: 0, progress: 50)
            _ = try add("b", parent: pointless, points: 0, progress: 25)
            _ = try add("c", parent: pointless, points: 0, done: true)
            let nested = try add("nested")
            let middle = try add("middle", parent: nested, points: 3, progress: 20)
            _ = try add("other", parent: nested, points: 1, progress: 60)
            _ = try add("deep", parent: middle, points: 1, progress: 90)
            _ = try add("deeper", parent: middle, points: 1, done: true)
            let expected: [Int64: Int?] = [alone: nil, allDone: 100, pointless: 58, nested: 30, middle: 95]
            var reads: [String: [Int64: Int?]] = [:]
            func note(_ read: String, _ records: [TaskRecord]) {
                for record in records where expected[record.id] != nil { reads[read, default: [:]][record.id] = record.computedProgress }
            }
            note("task", try expected.keys.compactMap { try db.task(id: $0) })
            note("room", try db.tasks(in: .room(home.room), done: nil))
            note("mine", try db.tasks(in: .mine(user: home.alice), done: false))
            note("subtasks", try db.subtasks(of: nested))
            let domain = try expected.keys.map { ($0, SubtaskProgress.percent(of: try db.subtasks(of: $0))) }
            reads["domain"] = Dictionary(uniqueKeysWithValues: domain)
            return (expected, reads, try db.room(id: home.room, forUser: home.alice, now: now), try db.tasks(in: .room(home.room), done: nil))
        }
        for (read, found) in reads {
            for (id, progress) in found {
                #expect(progress == expected[id], "\(read): #\(id)")
            }
        }
        #expect(reads["task"]?.count == expected.count && reads["room"]?.count == expected.count)
        #expect(reads["mine"]?.count == expected.count, "all five open and alice's")
        #expect(reads["subtasks"]?.count == 1, "middle, the one subtask with subtasks")
        let shown = try #require(room)
        #expect(shown.progress == RoomProgress.percent(of: tasks, now: now))
        #expect(shown.open == 4)
    }
}

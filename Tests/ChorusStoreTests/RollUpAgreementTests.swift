import ChorusCore
import Foundation
import Testing
@testable import ChorusStore

/// Where SQLite computes a domain rule for speed, its answer on a real file is the domain
/// function's: a parent's progress (`SubtaskProgress`) and the room bar (`RoomProgress`).
/// Also the rules the store only writes: reopening and re-armed notices.
@Suite struct RollUpAgreementTests {
    let now = Date(timeIntervalSince1970: 1_796_040_000)

    func household() throws -> (TempDirectory, Database, room: Int64) {
        let directory = try TempDirectory()
        let db = try Database(path: directory.path())
        _ = try db.createAccount(name: "alice", passwordHash: "x", created: "2026-11-30T00:00:00Z")
        let room = try db.createRoom(name: "Flat 2B", ownerID: 1, created: "2026-11-30T00:00:00Z")
        return (directory, db, room)
    }

    /// A seeded generator, so a failure names a case that can be run again.
    struct Dice {
        var state: UInt64
        mutating func below(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Parents with 0-6 subtasks of 0-4 points, any progress, some done: SQL and
    /// `SubtaskProgress.percent(of:)` agree on every one, rounding included.
    @Test func parentProgressAgreesWithTheDomain() throws {
        let (_, db, room) = try household()
        var dice = Dice(state: 7)
        var parents: [Int64] = []
        for _ in 0..<150 {
            let parent = try db.insertTask(TaskDraft(room: room, owner: nil, title: "parent", creator: 1, created: "t"))
            parents.append(parent)
            for _ in 0..<dice.below(7) {
                var draft = TaskDraft(room: room, owner: nil, title: "sub", creator: 1, created: "t")
                draft.parent = parent
                draft.points = dice.below(5)
                var record = try #require(try db.task(id: try db.insertTask(draft)))
                record.progress = dice.below(101)
                if dice.below(3) == 0 { record.finish(by: (1, "alice"), at: "2026-11-30T00:00:00Z") }
                try db.updateTask(record)
            }
        }
        var withSubtasks = 0
        var zeroPoints = 0
        for parent in parents {
            let subtasks = try db.subtasks(of: parent)
            let stored = try #require(try db.task(id: parent))
            #expect(stored.computedProgress == SubtaskProgress.percent(of: subtasks), "parent #\(parent)")
            if !subtasks.isEmpty { withSubtasks += 1 }
            if !subtasks.isEmpty && subtasks.allSatisfy({ $0.points == 0 }) { zeroPoints += 1 }
        }
        #expect(withSubtasks > 100 && withSubtasks < 150 && zeroPoints > 0, "a mix worth checking")
    }

    /// The bar and open count SQLite sums are `RoomProgress.percent(of:now:)` over the
    /// room's tasks, with tasks finished on both sides of the week's edge, to the second.
    @Test func roomBarAgreesWithTheDomain() throws {
        var dice = Dice(state: 3)
        for round in 0..<4 {
            let (_, db, room) = try household()
            var parents: [Int64] = []
            for _ in 0..<120 {
                var draft = TaskDraft(room: room, owner: nil, title: "chore", creator: 1, created: "t")
                draft.points = round == 3 ? 0 : dice.below(4)
                if !parents.isEmpty && dice.below(3) == 0 { draft.parent = parents[dice.below(parents.count)] }
                let id = try db.insertTask(draft)
                if draft.parent == nil && dice.below(4) == 0 { parents.append(id) }
                var record = try #require(try db.task(id: id))
                switch dice.below(5) {
                case 0: record.finish(by: (1, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-Double(dice.below(14)) * 86400)))
                case 1: record.finish(by: (1, "alice"), at: Timestamp.rfc3339(now.addingTimeInterval(-RoomProgress.window + Double(dice.below(3) - 1))))
                case 2: record.progress = dice.below(101)
                default: break
                }
                try db.updateTask(record)
            }
            let tasks = try db.tasks(in: .room(room), done: nil)
            let shown = try #require(try db.room(id: room, forUser: 1, now: now))
            #expect(shown.progress == RoomProgress.percent(of: tasks, now: now), "round \(round)")
            let since = RoomProgress.windowStart(now: now)
            #expect(shown.open == tasks.filter { RoomProgress.counts($0, since: since) && !$0.done }.count)
            #expect(shown.progress > 0 && shown.progress < 100, "a mix worth checking")
        }
    }

    /// The store keeps what the domain decided: the progress a reopened task gets back,
    /// and a sent notice owed again only once its time moves.
    @Test func reopeningAndReArmingSurviveTheStore() throws {
        let (_, db, room) = try household()
        let id = try db.insertTask(TaskDraft(room: room, owner: nil, title: "Bins", creator: 1, created: "t"))
        var task = try #require(try db.task(id: id))
        task.progress = 40
        task.due = "2026-11-01"
        try db.updateTask(TaskLifecycle.readyToStore(task))
        #expect(try db.dueNotices(.overdue, now: Int64(now.timeIntervalSince1970)) == [id])
        try db.markNoticeSent(.overdue, task: id)
        task = try #require(try db.task(id: id))
        task.title = "Recycling"
        try db.updateTask(TaskLifecycle.readyToStore(task))
        #expect(try db.dueNotices(.overdue, now: Int64(now.timeIntervalSince1970)) == [])
        task = try #require(try db.task(id: id))
        TaskLifecycle.setDue(&task, to: "2026-11-02")
        try db.updateTask(TaskLifecycle.readyToStore(task))
        #expect(try db.dueNotices(.overdue, now: Int64(now.timeIntervalSince1970)) == [id])

        task = try #require(try db.task(id: id))
        task.finish(by: (1, "alice"), at: "2026-11-30T00:00:00Z")
        try db.updateTask(TaskLifecycle.readyToStore(task))
        #expect(try db.task(id: id)?.effectiveProgress == 100)
        let reopened = try TaskLifecycle.reopen(try #require(try db.task(id: id)))
        try db.updateTask(TaskLifecycle.readyToStore(reopened))
        let back = try #require(try db.task(id: id))
        #expect(!back.done && back.progress == 40)
    }
}

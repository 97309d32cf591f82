import ChorusCore
import ChorusRendering
import Foundation
import Testing

/// What people and bots see of tasks and rooms.
@Suite struct PresentationTests {
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    func task(progress: Int = 0, done: Bool = false, points: Int = 1, parent: Int64? = nil, due: String? = nil,
              computed: Int? = nil) -> TaskRecord {
        TaskRecord(id: 12, room: 3, roomName: "Flat 2B", ownerID: nil, title: "Take out trash", notes: nil, done: done,
                   progress: progress, assignee: "bob", creator: "alice", creatorID: 1, due: due, start: nil, estimate: nil,
                   points: points, parent: parent, repeatRule: nil, rotate: nil, remind: nil, created: "2026-11-29T18:04:05Z",
                   doneAt: nil, doneBy: nil, computedProgress: computed)
    }

    /// One Presentation works out each date's local moment once and reuses it; its
    /// answers for many tasks sharing dates (a start and a due on the same day, at 00:00
    /// and 23:59:59) are those of a fresh Presentation for each task.
    @Test func sharedDatesGiveTheSameAnswers() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = Date(timeIntervalSince1970: 1_796_040_000) // 2026-11-30 12:00 UTC
        let shared = Presentation(now: now, calendar: calendar)
        let days = ["2026-11-27", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-03"]
        var behind = 0
        for (index, due) in days.enumerated() {
            for start in days {
                for estimate in [0.5, 1, 3] {
                    var record = task(progress: index * 10, due: due)
                    record.start = start
                    record.estimate = estimate
                    let fresh = Presentation(now: now, calendar: calendar)
                    #expect(shared.timing.isOverdue(record) == fresh.timing.isOverdue(record), "\(due) \(start) \(estimate)")
                    #expect(shared.timing.isBehind(record) == fresh.timing.isBehind(record), "\(due) \(start) \(estimate)")
                    #expect(shared.dueText(record) == fresh.dueText(record))
                    #expect(shared.daysLeftBar(record) == fresh.daysLeftBar(record))
                    if shared.timing.isBehind(record) { behind += 1 }
                }
            }
        }
        #expect(behind > 10 && behind < 75, "a mix of plans that have and have not ended: \(behind)")
    }

    /// Chat lines carry the wall clock of the server's zone, zero-padded, across offsets
    /// that are not whole hours and on both sides of midnight and of 1970.
    @Test func clockFollowsTheZone() throws {
        func clock(_ seconds: TimeInterval, _ zone: String) throws -> String {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zone))
            return Presentation(now: now, calendar: calendar).clock(Date(timeIntervalSince1970: seconds))
        }
        #expect(try clock(0, "UTC") == "00:00")
        #expect(try clock(59, "UTC") == "00:00")
        #expect(try clock(1_796_000_000, "UTC") == "00:53")
        #expect(try clock(1_796_000_000, "Asia/Kolkata") == "06:23")
        #expect(try clock(1_796_000_000, "America/New_York") == "19:53")
        #expect(try clock(-1, "UTC") == "23:59")
        #expect(try clock(-61, "UTC") == "23:58")
    }

    /// Progress bars have ten cells and a right-aligned percentage.
    @Test func progressBars() {
        #expect(Presentation.bar(0) == "[----------]   0%")
        #expect(Presentation.bar(40) == "[####------]  40%")
        #expect(Presentation.bar(100) == "[##########] 100%")
        #expect(Presentation.bar(250) == "[##########] 100%")
        #expect(Presentation.bar(-5) == "[----------]   0%")
    }

    /// A room's progress weighs its top-level tasks by points; subtasks do not count twice.
    @Test func roomProgressIsWeightedByPoints() {
        #expect(RoomProgress.percent(of: []) == 0)
        let tasks = [task(progress: 40, points: 2), task(done: true, points: 1), task(progress: 0, points: 1, parent: 12)]
        #expect(RoomProgress.percent(of: tasks) == 60)
        #expect(RoomProgress.percent(of: [task(progress: 50, points: 0), task(progress: 100, points: 0)]) == 75)
    }

    /// Overdue is computed from the due date and now; done tasks are never overdue.
    @Test func overdueAndDaysLeft() {
        let present = Presentation(now: now)
        #expect(present.timing.isOverdue(task(due: "2020-01-01")))
        #expect(!present.timing.isOverdue(task(done: true, due: "2020-01-01")))
        #expect(!present.timing.isOverdue(task(due: "2999-01-01")))
        #expect(!present.timing.isOverdue(task()))
        #expect(present.dueText(task(due: "2020-01-01")).hasSuffix("days overdue"))
        #expect(present.dueText(task(done: true)) == "done")
    }

    /// The days-left bar empties from the start to the due date.
    @Test func daysLeftBar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let present = Presentation(now: Date(timeIntervalSince1970: 1_796_040_000), calendar: calendar) // 2026-11-30 12:00 UTC
        var planned = task(due: "2026-12-06")
        planned.start = "2026-11-26"
        #expect(present.daysLeftBar(planned) == "days left [######----] 6 of 10")
        #expect(present.daysLeftBar(task(due: "2026-11-28"))?.hasPrefix("days left [----------] none") == true)
        #expect(present.daysLeftBar(task(done: true, due: "2026-12-06")) == nil)
        #expect(present.daysLeftBar(task()) == nil)
    }

    /// The JSON shape carries the contract's fields, with a parent's computed progress.
    @Test func taskShape() throws {
        let shape = Presentation(now: now).task(task(progress: 10, computed: 55))
        guard case .object(let fields) = shape else { Issue.record("not an object"); return }
        let keys = fields.map(\.0)
        #expect(keys == ["id", "room", "title", "notes", "status", "progress", "assignee", "creator", "due", "start",
                         "estimate", "points", "parent", "repeat", "rotate", "remind", "overdue", "behind", "days_left", "created",
                         "done_at"])
        #expect(fields.first { $0.0 == "progress" }?.1 == .int(55))
        #expect(fields.first { $0.0 == "status" }?.1 == .string("open"))
    }

    /// A listing line shows number, title, room, bar and assignee in columns.
    @Test func taskLine() {
        let line = Presentation(now: now).taskLine(task(progress: 40))
        #expect(line.hasPrefix("  #12   Take out trash"))
        #expect(line.contains("Flat 2B"))
        #expect(line.contains("[####------]  40%"))
        #expect(line.hasSuffix("@bob"))
    }

    /// An id too long for its column still has a blank after it (a restored server's
    /// counters start a million on): `#1000002 Take out trash`, not `#1000002Take`.
    @Test func longIDsKeepABlank() {
        let long = TaskRecord(id: 1_000_002, room: 3, roomName: "Flat 2B", ownerID: nil, title: "Take out trash", notes: nil,
                              done: false, progress: 0, assignee: nil, creator: "alice", creatorID: 1, due: nil, start: nil,
                              estimate: nil, points: 1, parent: nil, repeatRule: nil, rotate: nil, remind: nil,
                              created: "2026-11-29T18:04:05Z", doneAt: nil, doneBy: nil, computedProgress: nil)
        #expect(Presentation(now: now).taskLine(long).hasPrefix("  #1000002 Take out trash"))
    }
}

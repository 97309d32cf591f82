import ChorusCore
import Foundation

/// Records for the domain's tests: alice (1) created task 12 in room 3 "Flat 2B".
enum Fixture {
    static func task(id: Int64 = 12, room: Int64? = 3, owner: Int64? = nil, progress: Int = 0, done: Bool = false,
                     points: Int = 1, parent: Int64? = nil, assignee: (id: Int64, name: String)? = nil, creator: Int64 = 1,
                     due: String? = nil, start: String? = nil, estimate: Double? = nil, repeatRule: String? = nil,
                     rotate: String? = nil, remind: String? = nil, doneAt: String? = nil, computed: Int? = nil) -> TaskRecord {
        var task = TaskRecord(id: id, room: room, roomName: room == nil ? nil : "Flat 2B", ownerID: owner, title: "Bins",
                              notes: "the green one", done: false, progress: progress, assignee: nil, creator: "alice",
                              creatorID: creator, due: due, start: start, estimate: estimate, points: points, parent: parent,
                              repeatRule: repeatRule, rotate: rotate, remind: remind, created: "2026-11-01T08:00:00Z",
                              doneAt: nil, doneBy: nil, computedProgress: computed)
        task.assign(to: assignee)
        if done { task.finish(by: (1, "alice"), at: doneAt ?? "2026-11-20T08:00:00Z") }
        return task
    }

    static func utc() -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    /// 2026-11-30 12:00 UTC, a Monday.
    static let now = Date(timeIntervalSince1970: 1_796_040_000)
}

import ChorusCore
import Foundation
import Testing

/// Overdue, behind and days left, judged at one `now`.
@Suite struct TaskTimingTests {
    let timing = TaskTiming(now: Fixture.now, calendar: Fixture.utc())

    /// A date alone is due at the end of its day: overdue only from the next day.
    @Test func overdueFromTheDueMoment() {
        #expect(!timing.isOverdue(Fixture.task(due: "2026-11-30")))
        #expect(timing.isOverdue(Fixture.task(due: "2026-11-29")))
        #expect(timing.isOverdue(Fixture.task(due: "2026-11-30T11:59:59Z")))
        #expect(!timing.isOverdue(Fixture.task(due: "2026-11-30T12:00:00Z")))
        #expect(!timing.isOverdue(Fixture.task(done: true, due: "2026-11-01")))
        #expect(!timing.isOverdue(Fixture.task()))
    }

    /// Behind once start + estimate days has passed, unless finished or at 100%.
    @Test func behindOncePlanEnds() {
        #expect(timing.isBehind(Fixture.task(start: "2026-11-28", estimate: 2)))   // ended 11-30 00:00
        #expect(!timing.isBehind(Fixture.task(start: "2026-11-28", estimate: 3)))  // ends 12-01
        #expect(timing.isBehind(Fixture.task(start: "2026-11-30", estimate: 0.25)))  // ended 06:00
        #expect(!timing.isBehind(Fixture.task(done: true, start: "2026-11-28", estimate: 2)))
        #expect(!timing.isBehind(Fixture.task(progress: 100, start: "2026-11-28", estimate: 2)))
        #expect(!timing.isBehind(Fixture.task(start: "2026-11-28", estimate: 2, computed: 100)))
        #expect(!timing.isBehind(Fixture.task(start: "2026-11-28")))
        #expect(!timing.isBehind(Fixture.task(estimate: 2)))
    }

    @Test func daysLeftCountsCalendarDays() throws {
        #expect(timing.daysLeft(try #require(When(stored: "2026-11-30"))) == 0)
        #expect(timing.daysLeft(try #require(When(stored: "2026-12-02"))) == 2)
        #expect(timing.daysLeft(try #require(When(stored: "2026-11-28T23:00:00Z"))) == -2)
    }

    /// One timing reuses each date's moment; its answers are those of a fresh one per task.
    @Test func sharedMemoAnswersLikeFresh() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let shared = TaskTiming(now: Fixture.now, calendar: calendar)
        let days = ["2026-11-27", "2026-11-29", "2026-11-30", "2026-12-01", "2026-12-03"]
        var overdue = 0
        for due in days {
            for start in days {
                let task = Fixture.task(due: due, start: start, estimate: 1)
                let fresh = TaskTiming(now: Fixture.now, calendar: calendar)
                #expect(shared.isOverdue(task) == fresh.isOverdue(task))
                #expect(shared.isBehind(task) == fresh.isBehind(task))
                if shared.isOverdue(task) { overdue += 1 }
            }
        }
        #expect(overdue == 10)
    }

    /// The scheduler's times: due at the end of a date, a reminder at 09:00, and the end
    /// of the plan.
    @Test func noticeTimes() {
        let times = Fixture.task(due: "2026-12-05", start: "2026-12-01T10:00:00Z", estimate: 1, remind: "2026-12-04")
            .noticeTimes(calendar: Fixture.utc())
        #expect(times.due.map(Timestamp.rfc3339) == "2026-12-05T23:59:59Z")
        #expect(times.remind.map(Timestamp.rfc3339) == "2026-12-04T09:00:00Z")
        #expect(times.behind.map(Timestamp.rfc3339) == "2026-12-02T10:00:00Z")
        let none = Fixture.task(start: "2026-12-01").noticeTimes(calendar: Fixture.utc())
        #expect(none.due == nil && none.remind == nil && none.behind == nil)
    }

    /// A task at 100 % or finished owes no behind notice, as `isBehind` says: the stored
    /// moment is cleared, and comes back when its progress falls again.
    @Test func noBehindMomentOnceComplete() {
        let calendar = Fixture.utc()
        for task in [Fixture.task(progress: 100, start: "2026-11-28", estimate: 2),
                     Fixture.task(done: true, start: "2026-11-28", estimate: 2)] {
            #expect(task.noticeTimes(calendar: calendar).behind == nil)
            #expect(!TaskTiming(now: Fixture.now, calendar: calendar).isBehind(task))
        }
        let fallen = Fixture.task(progress: 90, start: "2026-11-28", estimate: 2)
        #expect(fallen.noticeTimes(calendar: calendar).behind.map(Timestamp.rfc3339) == "2026-11-30T00:00:00Z")
    }
}

import ChorusCore
import Foundation
import Testing

/// A parent's progress from its subtasks, and the room bar's week.
@Suite struct ProgressRollUpTests {
    @Test func parentsWeighSubtasksByPoints() {
        #expect(SubtaskProgress.percent(of: []) == nil)
        // 3 points done and 1 point open: 75%.
        #expect(SubtaskProgress.percent(of: [Fixture.task(done: true, points: 3), Fixture.task(points: 1)]) == 75)
        // (50*1 + 0*2) / 3 = 16.67: rounds to 17.
        #expect(SubtaskProgress.percent(of: [Fixture.task(progress: 50), Fixture.task(points: 2)]) == 17)
        // Exactly half rounds up: (1*1 + 0*1) / 2 = 0.5.
        #expect(SubtaskProgress.percent(of: [Fixture.task(progress: 1), Fixture.task()]) == 1)
        // No points anywhere: the plain average, rounded down.
        #expect(SubtaskProgress.percent(of: [Fixture.task(progress: 50, points: 0), Fixture.task(progress: 25, points: 0)]) == 37)
        // A done subtask counts 100 whatever progress it was left at.
        #expect(SubtaskProgress.percent(of: [Fixture.task(progress: 10, done: true, points: 0)]) == 100)
        // A subtask's own subtasks do not exist; its stored progress counts.
        #expect(SubtaskProgress.percent(of: [Fixture.task(progress: 20, computed: 90)]) == 20)
    }

    @Test func roomBarIsWeightedByPoints() {
        #expect(RoomProgress.percent(of: []) == 0)
        let tasks = [Fixture.task(progress: 40, points: 2), Fixture.task(done: true), Fixture.task(points: 1, parent: 12)]
        #expect(RoomProgress.percent(of: tasks) == 60)
        #expect(RoomProgress.percent(of: [Fixture.task(progress: 50, points: 0), Fixture.task(progress: 100, points: 0)]) == 75)
        #expect(RoomProgress.percent(of: [Fixture.task(progress: 0, computed: 80)]) == 80)
    }

    /// What the engines hand over is sums, not records: a parent's subtasks summed
    /// (`ProgressSums`), and for the bar the counted tasks without subtasks summed plus each
    /// parent with its subtasks' sums. The percentages from them are the records' own.
    @Test func sumsDecideAsRecordsDo() {
        let subtasks = [Fixture.task(progress: 50), Fixture.task(progress: 10, done: true, points: 2), Fixture.task(progress: 30, points: 0)]
        let sums = ProgressSums(of: subtasks)
        #expect(sums == ProgressSums(tasks: 3, done: 1, points: 3, donePoints: 2, openProgress: 80, openWeightedProgress: 50))
        // (100 * 2 + 50 * 1 + 30 * 0 + 3 / 2) / 3 = 83
        #expect(SubtaskProgress.percent(sums) == 83)
        #expect(SubtaskProgress.percent(sums) == SubtaskProgress.percent(of: subtasks))
        #expect(SubtaskProgress.percent(ProgressSums()) == nil)
        // No points: the plain average of 100 (done) and 30.
        #expect(SubtaskProgress.percent(ProgressSums(tasks: 2, done: 1, openProgress: 30)) == 65)

        let plain = [Fixture.task(progress: 40, points: 2), Fixture.task(done: true, points: 1)]
        let finishedSubtasks = ProgressSums(tasks: 1, points: 1, openProgress: 10, openWeightedProgress: 10)
        let (totals, open) = RoomProgress.totals(plain: ProgressSums(of: plain), parents: [
            RoomProgress.Parent(done: false, points: 3, progress: 0, subtasks: sums),
            RoomProgress.Parent(done: true, points: 1, progress: 0, subtasks: finishedSubtasks),
        ])
        let records = plain + [Fixture.task(points: 3, computed: 83), Fixture.task(done: true, points: 1, computed: 10)]
        #expect(RoomProgress.percent(totals) == RoomProgress.percent(of: records))
        #expect(RoomProgress.percent(totals) == 76)
        #expect(open == 2)
    }

    /// Open tasks always count; finished ones for seven days; subtasks never (their parent does).
    @Test func roomBarCountsTheLastWeek() {
        let now = Fixture.now
        let since = RoomProgress.windowStart(now: now)
        #expect(since == "2026-11-23T12:00:00Z")
        #expect(RoomProgress.counts(Fixture.task(), since: since))
        #expect(RoomProgress.counts(Fixture.task(done: true, doneAt: "2026-11-23T12:00:00Z"), since: since))
        #expect(!RoomProgress.counts(Fixture.task(done: true, doneAt: "2026-11-23T11:59:59Z"), since: since))
        #expect(!RoomProgress.counts(Fixture.task(parent: 4), since: since))
        let tasks = [Fixture.task(), Fixture.task(done: true, doneAt: "2026-11-29T00:00:00Z"),
                     Fixture.task(done: true, doneAt: "2026-11-01T00:00:00Z"), Fixture.task(done: true, doneAt: "2026-11-02T00:00:00Z")]
        #expect(RoomProgress.percent(of: tasks, now: now) == 50)
    }
}

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

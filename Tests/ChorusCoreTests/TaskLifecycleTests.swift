import ChorusCore
import Foundation
import Testing

/// Finishing, reopening, progress, and what is stored when a task changes.
@Suite struct TaskLifecycleTests {
    let now = Fixture.now
    let calendar = Fixture.utc()
    let everyone: (String) -> Bool = { _ in true }

    func finish(_ task: TaskRecord, madeBefore: Bool = false, isAssignable: (String) -> Bool = { _ in true }) throws -> Finishing {
        try TaskLifecycle.finish(task, by: (2, "bob"), at: "2026-11-30T12:00:00Z", now: now, madeBefore: madeBefore,
                                 calendar: calendar, isAssignable: isAssignable)
    }

    @Test func finishingAPlainTask() throws {
        let finishing = try finish(Fixture.task(progress: 40))
        #expect(finishing.task.done && finishing.task.progress == 100 && finishing.task.effectiveProgress == 100)
        #expect(finishing.task.doneBy == "bob" && finishing.task.doneByID == 2 && finishing.task.doneAt == "2026-11-30T12:00:00Z")
        #expect(finishing.task.reopenProgress == 40)
        #expect(finishing.next == nil)
        #expect(finishing.events == [.finished])
        #expect(throws: DomainError.alreadyDone(12)) { try finish(finishing.task) }
    }

    /// A weekly chore due last Tuesday, finished on Monday: next Tuesday, start and
    /// reminder moved as far, for the next in the rota; the copy keeps the task's fields.
    @Test func finishingARepeatingTaskMakesTheNextOccurrence() throws {
        let task = Fixture.task(points: 3, assignee: (2, "bob"), due: "2026-11-24", start: "2026-11-22", estimate: 2,
                                repeatRule: "weekly", rotate: "alice,bob,carol", remind: "2026-11-24T07:00:00Z")
        let finishing = try finish(task)
        let next = try #require(finishing.next)
        #expect(finishing.events == [.finished, .nextOccurrenceAdded])
        #expect(next.due == "2026-12-01")
        #expect(next.start == "2026-11-29")
        #expect(next.remind == "2026-12-01T07:00:00Z")
        #expect(next.assignee == "carol")
        #expect(next.room == 3 && next.title == "Bins" && next.notes == "the green one" && next.points == 3)
        #expect(next.estimate == 2 && next.repeatRule == "weekly" && next.rotate == "alice,bob,carol" && next.creator == 1)
        // carol has left: the turn passes to alice; nobody left: nobody.
        #expect(try finish(task) { $0 != "carol" }.next?.assignee == "alice")
        #expect(try finish(task) { _ in false }.next?.assignee == nil)
        // Without a rota the assignee keeps it while still a member.
        let kept = Fixture.task(assignee: (2, "bob"), due: "2026-11-24", repeatRule: "daily")
        #expect(try finish(kept).next?.assignee == "bob")
        #expect(try finish(kept).next?.due == "2026-12-01")
        #expect(try finish(kept) { _ in false }.next?.assignee == nil)
    }

    /// Finished, reopened and finished again in one period: the next one exists already.
    @Test func aSecondFinishMakesNoSecondOccurrence() throws {
        let finishing = try finish(Fixture.task(due: "2026-11-24", repeatRule: "weekly"), madeBefore: true)
        #expect(finishing.next == nil)
        #expect(finishing.events == [.finished])
    }

    @Test func reopeningGivesBackTheProgressItHad() throws {
        let done = try finish(Fixture.task(progress: 40)).task
        let open = try TaskLifecycle.reopen(done)
        #expect(!open.done && open.progress == 40 && open.doneBy == nil && open.doneAt == nil && open.doneByID == nil)
        #expect(throws: DomainError.notDone(12)) { try TaskLifecycle.reopen(open) }
        // Moved on, then finished and reopened again: the newer progress comes back.
        let moved = try TaskLifecycle.setProgress(open, to: 70)
        #expect(try TaskLifecycle.reopen(try finish(moved).task).progress == 70)
        // Done before that progress was kept: it stays at 100.
        var old = Fixture.task(done: true)
        old.reopenProgress = nil
        #expect(try TaskLifecycle.reopen(old).progress == 100)
    }

    @Test func progressOnlyOnOpenTasksWithoutSubtasks() throws {
        #expect(try TaskLifecycle.setProgress(Fixture.task(), to: 55).progress == 55)
        #expect(throws: DomainError.progressOfDoneTask(12)) { try TaskLifecycle.setProgress(Fixture.task(done: true), to: 5) }
        #expect(throws: DomainError.progressFromSubtasks(12)) { try TaskLifecycle.setProgress(Fixture.task(computed: 30), to: 5) }
    }

    @Test func aDueOrRuleSetByHandRestartsTheMonthlyDay() {
        var task = Fixture.task(due: "2026-02-28", repeatRule: "monthly")
        task.repeatDay = 31
        TaskLifecycle.setDue(&task, to: "2026-03-05")
        #expect(task.due == "2026-03-05" && task.repeatDay == nil)
        task.repeatDay = 31
        TaskLifecycle.setRepeat(&task, to: "weekly")
        #expect(task.repeatRule == "weekly" && task.repeatDay == nil)
    }

    /// What is stored: notice times from the dates; a sent notice is owed again only when
    /// its time moved.
    @Test func storingReArmsOnlyMovedNotices() throws {
        var task = Fixture.task(due: "2026-12-05", start: "2026-12-01", estimate: 1.5, remind: "2026-12-04")
        task = TaskLifecycle.readyToStore(task, calendar: calendar).record
        let due = try #require(task.notices.dueAt)
        #expect(Date(timeIntervalSince1970: Double(due)) == Date(timeIntervalSince1970: 1_796_515_199)) // 12-05 23:59:59
        #expect(task.notices.remindAt == 1_796_374_800) // 12-04 09:00
        #expect(task.notices.behindAt == 1_796_212_800) // 12-01 00:00 + 1.5 days
        task.notices.overdueSent = true
        task.notices.remindSent = true
        task.notices.behindSent = true
        task.title = "Recycling"
        let same = TaskLifecycle.readyToStore(task, calendar: calendar).record
        #expect(same.notices == task.notices)
        var moved = task
        moved.due = "2026-12-06"
        let rearmed = TaskLifecycle.readyToStore(moved, calendar: calendar).record.notices
        #expect(!rearmed.overdueSent && rearmed.remindSent && rearmed.behindSent)
        #expect(rearmed.dueAt == due + 86400)
        moved.remind = nil
        moved.estimate = nil
        let cleared = TaskLifecycle.readyToStore(moved, calendar: calendar).record.notices
        #expect(cleared.remindAt == nil && cleared.behindAt == nil && !cleared.remindSent && !cleared.behindSent)
    }
}

import ChorusCore
import Foundation
import Testing

/// When the next occurrence of a repeating task falls, and who takes it, in a fixed time
/// zone so results do not depend on the machine.
@Suite struct RepeatRuleTests {
    let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    func at(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 10) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour))!
    }

    func next(_ rule: RepeatRule, after due: String?, anchorDay: Int? = nil, now: Date) -> RepeatRule.Occurrence {
        rule.next(after: due.flatMap(When.init(stored:)), anchorDay: anchorDay, now: now, calendar: calendar)
    }

    /// The words parse to the rules they name, and each rule stores as one word.
    @Test func parsingAndStoredForms() throws {
        #expect(RepeatRule(stored: "daily") == .days(1))
        #expect(RepeatRule(stored: "Weekly") == .days(7))
        #expect(RepeatRule(stored: "monthly") == .monthly)
        #expect(RepeatRule(stored: "3d") == .days(3))
        #expect(RepeatRule(stored: "7d")?.stored == "weekly")
        #expect(RepeatRule.monthly.stored == "monthly")
        #expect(RepeatRule.days(30).stored == "30d")
        #expect(RepeatRule(stored: "0d") == nil)
        #expect(RepeatRule(stored: "366d") == nil)
        #expect(RepeatRule(stored: "yearly") == nil)
    }

    /// Finished on time (or early), the next one is one period after the previous due.
    @Test func onePeriodAfterTheDue() {
        #expect(next(.days(7), after: "2026-12-08", now: at(2026, 12, 7)).due.stored == "2026-12-15")
        #expect(next(.days(7), after: "2026-12-08", now: at(2026, 12, 8)).due.stored == "2026-12-15")
        #expect(next(.days(1), after: "2026-12-31", now: at(2026, 12, 31)).due.stored == "2027-01-01")
        #expect(next(.days(3), after: "2026-12-20", now: at(2026, 12, 1)).daysMoved == 3)
    }

    /// Finished late, the next one is the series' first date after today: Tuesday's bins
    /// stay on Tuesdays and do not come back overdue.
    @Test func lateKeepsTheWeekday() {
        // Due Tue 1 Dec, finished Thu 24 Dec: Tue 29 Dec, not Tue 8 Dec (16 days overdue).
        let late = next(.days(7), after: "2026-12-01", now: at(2026, 12, 24))
        #expect(late.due.stored == "2026-12-29")
        #expect(late.daysMoved == 28)
        // Finished on a later Tuesday: that day is done, the next Tuesday is next.
        #expect(next(.days(7), after: "2026-12-01", now: at(2026, 12, 8, 23)).due.stored == "2026-12-15")
        #expect(next(.days(1), after: "2026-11-01", now: at(2026, 12, 1)).due.stored == "2026-12-02")
        #expect(next(.monthly, after: "2026-01-15", now: at(2026, 6, 20)).due.stored == "2026-07-15")
        #expect(next(.monthly, after: "2026-01-15", now: at(2026, 6, 10)).due.stored == "2026-06-15")
    }

    /// A time keeps its local time of day, across a change of daylight saving time too.
    @Test func timesKeepTheirTimeOfDay() throws {
        // 18:00 in Berlin on Tue 20 Oct 2026 (summer time, 16:00 UTC).
        let due = Timestamp.rfc3339(calendar.date(from: DateComponents(year: 2026, month: 10, day: 20, hour: 18))!)
        let following = next(.days(7), after: due, now: at(2026, 10, 21))
        #expect(!following.due.dateOnly)
        // Tue 27 Oct is winter time: 18:00 local is 17:00 UTC.
        #expect(following.due.stored == "2026-10-27T17:00:00Z")
        let late = next(.days(7), after: due, now: at(2026, 11, 5))
        #expect(late.due.stored == "2026-11-10T17:00:00Z")
        #expect(late.daysMoved == 21)
    }

    /// A monthly series keeps its day: the last day of a shorter month, then back.
    @Test func monthlyKeepsItsDay() {
        let february = next(.monthly, after: "2026-01-31", now: at(2026, 1, 30))
        #expect(february.due.stored == "2026-02-28")
        #expect(february.anchorDay == 31)
        let march = next(.monthly, after: february.due.stored, anchorDay: february.anchorDay, now: at(2026, 2, 27))
        #expect(march.due.stored == "2026-03-31")
        let april = next(.monthly, after: march.due.stored, anchorDay: march.anchorDay, now: at(2026, 3, 30))
        #expect(april.due.stored == "2026-04-30")
        #expect(next(.monthly, after: "2028-01-30", now: at(2028, 1, 1)).due.stored == "2028-02-29")
        #expect(next(.monthly, after: "2026-12-15", now: at(2026, 12, 1)).due.stored == "2027-01-15")
        // Late by months, still on its day.
        #expect(next(.monthly, after: "2026-01-31", now: at(2026, 4, 2)).due.stored == "2026-04-30")
    }

    /// Without a due, one period after today.
    @Test func withoutADue() {
        let following = next(.days(7), after: nil, now: at(2026, 12, 7))
        #expect(following.due.stored == "2026-12-14")
        #expect(following.due.dateOnly)
        #expect(following.daysMoved == nil)
        #expect(next(.monthly, after: nil, now: at(2026, 1, 31)).due.stored == "2026-02-28")
    }

    /// Starts and reminders move by whole days: a date stays a date, a time its time of day.
    @Test func shiftingByDays() throws {
        #expect(When(stored: "2026-12-30")!.shifted(byDays: 3, calendar: calendar).stored == "2027-01-02")
        let evening = Timestamp.rfc3339(calendar.date(from: DateComponents(year: 2026, month: 10, day: 24, hour: 20))!)
        #expect(When(stored: evening)!.shifted(byDays: 7, calendar: calendar).stored == "2026-10-31T19:00:00Z")
    }

    /// Day numbers and dates convert both ways.
    @Test func civilDatesRoundTrip() {
        for number in [-1, 0, 59, 60, 11_016, 11_017, 20_000, 20_513, 2_932_896] {
            let date = When.civilDate(dayNumber: number)
            #expect(When.dayNumber(year: date.year, month: date.month, day: date.day) == number)
        }
        #expect(When.civilDate(dayNumber: 0).text == "1970-01-01")
        #expect(When.civilDate(dayNumber: 11_016).text == "2000-02-29")
    }

    /// The turn after the previous assignee's, whoever finished; the first name when there
    /// was none or one outside the rota; members who left are passed over.
    @Test func rotation() {
        let names = ["alice", "bob", "carol"]
        let everyone: (String) -> Bool = { _ in true }
        #expect(Rotation.nextAssignee(in: names, previous: "alice", isMember: everyone) == "bob")
        #expect(Rotation.nextAssignee(in: names, previous: "carol", isMember: everyone) == "alice")
        #expect(Rotation.nextAssignee(in: names, previous: nil, isMember: everyone) == "alice")
        #expect(Rotation.nextAssignee(in: names, previous: "dave", isMember: everyone) == "alice")
        // bob left the room.
        let withoutBob: (String) -> Bool = { $0 != "bob" }
        #expect(Rotation.nextAssignee(in: names, previous: "alice", isMember: withoutBob) == "carol")
        #expect(Rotation.nextAssignee(in: names, previous: "carol", isMember: { $0 == "carol" }) == "carol")
        #expect(Rotation.nextAssignee(in: names, previous: "alice", isMember: { _ in false }) == nil)
        // No rota: the same person while still a member.
        #expect(Rotation.nextAssignee(in: [], previous: "bob", isMember: everyone) == "bob")
        #expect(Rotation.nextAssignee(in: [], previous: "bob", isMember: withoutBob) == nil)
        #expect(Rotation.nextAssignee(in: [], previous: nil, isMember: everyone) == nil)
    }
}

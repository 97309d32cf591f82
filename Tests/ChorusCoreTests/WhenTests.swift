import ChorusCore
import Foundation
import Testing

/// WHEN values as a user types them, read in a fixed time zone so results do not depend on the machine.
@Suite struct WhenTests {
    let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return calendar
    }()

    /// Monday 30 Nov 2026, 14:30 in Berlin (13:30 UTC).
    var now: Date { calendar.date(from: DateComponents(year: 2026, month: 11, day: 30, hour: 14, minute: 30))! }

    func parse(_ text: String) throws -> When { try When.parse(text, now: now, calendar: calendar) }

    /// Dates alone stay dates; relative day forms count from today in the server's zone.
    @Test func dateForms() throws {
        #expect(try parse("2026-12-05").stored == "2026-12-05")
        #expect(try parse("2026-12-05").dateOnly)
        #expect(try parse("today").stored == "2026-11-30")
        #expect(try parse("Tomorrow").stored == "2026-12-01")
        #expect(try parse("+3d").stored == "2026-12-03")
        #expect(try parse("+0d").stored == "2026-11-30")
    }

    /// A weekday name means the next one, never today.
    @Test func weekdays() throws {
        #expect(try parse("monday").stored == "2026-12-07")
        #expect(try parse("tue").stored == "2026-12-01")
        #expect(try parse("Sunday").stored == "2026-12-06")
    }

    /// Times are local on input and stored in UTC; +Nh/+Nm count from now.
    @Test func timeForms() throws {
        #expect(try parse("2026-12-05T18:00").stored == "2026-12-05T17:00:00Z")
        #expect(try parse("+2h").stored == "2026-11-30T15:30:00Z")
        #expect(try parse("+45m").stored == "2026-11-30T14:15:00Z")
        #expect(try parse("+2h").dateOnly == false)
    }

    /// Malformed or impossible values get 422 naming the accepted forms.
    @Test func badValues() {
        for text in ["someday", "2026-02-30", "2026-13-01", "2026-1-5", "26-12-05", "+d", "+5w", "2026-12-05T25:00",
                     "2026-12-05T18:60", "2026-12-05 18:00", "", "+99999d"] {
            let error = #expect(throws: ChorusError.self, "\(text)") { try parse(text) }
            #expect(error?.code == 422)
            #expect(error?.message.contains("YYYY-MM-DD") == true)
        }
    }

    /// A date alone is due at the end of its day; days_left counts calendar days.
    @Test func dueInstantAndDaysLeft() throws {
        let due = try parse("2026-12-02")
        #expect(due.daysLeft(now: now, calendar: calendar) == 2)
        #expect(try parse("today").daysLeft(now: now, calendar: calendar) == 0)
        #expect(try parse("2026-11-28").daysLeft(now: now, calendar: calendar) == -2)
        let end = try #require(try parse("today").dueInstant(calendar: calendar))
        #expect(end > now)
        #expect(calendar.component(.hour, from: end) == 23)
    }

    /// Stored values read back; anything else is rejected.
    @Test func storedRoundTrip() {
        #expect(When(stored: "2026-12-05")?.dateOnly == true)
        #expect(When(stored: "2026-12-05T17:00:00Z")?.dateOnly == false)
        #expect(When(stored: "garbage") == nil)
    }
}

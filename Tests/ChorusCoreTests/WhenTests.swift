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

    /// A time given in UTC (a browser's, in its person's zone, converted) is that moment,
    /// whatever the server's zone; the stored form goes back unchanged.
    @Test func utcForms() throws {
        #expect(try parse("2026-12-05T18:00Z").stored == "2026-12-05T18:00:00Z")
        #expect(try parse("2026-12-05T17:00:00Z").stored == "2026-12-05T17:00:00Z")
        #expect(try parse("2026-12-05T17:00:00Z").dateOnly == false)
    }

    /// Malformed or impossible values are refused naming the accepted forms.
    @Test func badValues() {
        for text in ["someday", "2026-02-30", "2026-13-01", "2026-1-5", "26-12-05", "+d", "+5w", "2026-12-05T25:00",
                     "2026-12-05T18:60", "2026-12-05 18:00", "", "+99999d"] {
            let error = #expect(throws: DomainError.self, "\(text)") { try parse(text) }
            #expect(error == .badDate(text, accepted: When.accepted))
            #expect(error?.message.contains("YYYY-MM-DD") == true)
        }
    }

    /// A date alone is due at the end of its day; days_left counts calendar days.
    @Test func dueInstantAndDaysLeft() throws {
        let due = try parse("2026-12-02")
        let timing = TaskTiming(now: now, calendar: calendar)
        #expect(timing.daysLeft(due) == 2)
        #expect(timing.daysLeft(try parse("today")) == 0)
        #expect(timing.daysLeft(try parse("2026-11-28")) == -2)
        let end = try #require(try parse("today").dueInstant(calendar: calendar))
        #expect(end > now)
        #expect(calendar.component(.hour, from: end) == 23)
    }

    /// Stored values read back; anything else is rejected, impossible dates included.
    @Test func storedRoundTrip() {
        #expect(When(stored: "2026-12-05")?.dateOnly == true)
        #expect(When(stored: "2026-12-05T17:00:00Z")?.dateOnly == false)
        #expect(When(stored: "2028-02-29")?.dateOnly == true)
        #expect(When(stored: "2000-02-29")?.dateOnly == true)
        for bad in ["garbage", "2026-02-29", "2100-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00",
                    "1969-12-31", "2026-1-015", "2026/12/05", "２０２６-12-05"] {
            #expect(When(stored: bad) == nil, "\(bad)")
        }
    }

    /// `days_left` by day numbers agrees with the calendar's own count of days between
    /// local midnights, in zones with daylight saving, half-hour and +14 h offsets, for
    /// dates and instants around the year, seen at many hours of many days.
    @Test func daysLeftAgreesWithTheCalendar() throws {
        #expect(When.dayNumber(year: 1970, month: 1, day: 1) == 0)
        #expect(When.dayNumber(year: 2000, month: 3, day: 1) == 11_017)
        #expect(When.dayNumber(year: 1969, month: 12, day: 31) == -1)
        let zones = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Kiritimati"]
        var checked = 0
        for zone in zones {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(identifier: zone))
            let start = Date(timeIntervalSince1970: 1_798_000_000) // late December 2026
            for step in 0..<40 {
                let now = start.addingTimeInterval(Double(step) * 9.3 * 86400 + Double(step % 24) * 3600)
                let timing = TaskTiming(now: now, calendar: calendar)
                for offset in stride(from: -45, through: 400, by: 29) {
                    let moment = now.addingTimeInterval(Double(offset) * 86400 + 7 * 3600)
                    let parts = calendar.dateComponents([.year, .month, .day], from: moment)
                    let date = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
                    let instant = Timestamp.rfc3339(moment)
                    for when in [When(stored: date), When(stored: instant)] {
                        let value = try #require(when)
                        let due = try #require(value.dueInstant(calendar: calendar))
                        let expected = calendar.dateComponents([.day], from: calendar.startOfDay(for: now),
                                                               to: calendar.startOfDay(for: due)).day
                        #expect(timing.daysLeft(value) == expected, "\(zone) now \(now) due \(value.stored)")
                        #expect(TaskTiming(now: now, calendar: calendar).daysLeft(value) == expected)
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 6 * 40 * 16 * 2)
    }
}

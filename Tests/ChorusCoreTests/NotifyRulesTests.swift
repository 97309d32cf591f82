import ChorusCore
import Foundation
import Testing

/// The rules of NOTIFY (CONTRACT §10): kinds, zones, quiet windows, mentions, codes.
@Suite struct NotifyRulesTests {
    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    static func at(_ hour: Int, _ minute: Int = 0, day: Int = 7, in calendar: Calendar) -> Date {
        calendar.date(from: DateComponents(year: 2026, month: 12, day: day, hour: hour, minute: minute))!
    }

    @Test func aWindowPastMidnightHoldsUntilItsEnd() throws {
        let quiet = try QuietHours(parsing: "22:00-07:00")
        let london = Self.calendar("Europe/London")
        #expect(quiet.release(after: Self.at(21, 59, in: london), calendar: london) == nil)
        #expect(quiet.release(after: Self.at(22, in: london), calendar: london) == Self.at(7, day: 8, in: london))
        #expect(quiet.release(after: Self.at(3, 30, in: london), calendar: london) == Self.at(7, in: london))
        #expect(quiet.release(after: Self.at(7, in: london), calendar: london) == nil)
        // The same instant is 11:00 in Auckland: not quiet there.
        let auckland = Self.calendar("Pacific/Auckland")
        #expect(quiet.release(after: Self.at(22, in: london), calendar: auckland) == nil)
    }

    @Test func aWindowWithinADay() throws {
        let quiet = try QuietHours(parsing: "13:30-15:00")
        let utc = Self.calendar("UTC")
        #expect(quiet.release(after: Self.at(14, in: utc), calendar: utc) == Self.at(15, in: utc))
        #expect(quiet.release(after: Self.at(15, 1, in: utc), calendar: utc) == nil)
        #expect(quiet.text == "13:30-15:00")
    }

    @Test func badWindowsKindsAndZonesAreRefused() throws {
        for bad in ["22:00-22:00", "24:00-07:00", "7:00-9:00", "22:00", "aa:bb-cc:dd", "22:00-07:00-08:00", "２２:00-07:00"] {
            #expect(throws: DomainError.badQuietHours(bad)) { try QuietHours(parsing: bad) }
        }
        #expect(throws: DomainError.unknownNoticeKind("gossip")) { try NotifyRules.kinds("dm,gossip") }
        #expect(try NotifyRules.kinds("DM,reminder,dm") == [.dm, .reminder])
        #expect(try NotifyRules.kinds("") == [])
        for zone in ["Mars/Olympus", "EST", "", "../etc/passwd"] {
            #expect(throws: DomainError.unknownTimeZone(zone)) { try NotifyRules.zone(zone) }
        }
        #expect(try NotifyRules.zone("America/Argentina/Buenos_Aires") == "America/Argentina/Buenos_Aires")
    }

    @Test func mentionsAreNamesNotAddresses() {
        #expect(Mentions.names(in: "@ann can you? and @Bob.") == ["ann", "bob"])
        #expect(Mentions.names(in: "mail bob@example.org or @ann@x") == [])
        #expect(Mentions.names(in: "(@cat) @cat @d") == ["cat"])
        #expect(Mentions.names(in: String(repeating: "@user ", count: 5) + (0..<40).map { "@u\($0)" }.joined(separator: " ")).count == Mentions.most)
    }

    @Test func codesExpireAndCountTries() {
        let now = Date(timeIntervalSince1970: 1000)
        #expect(NotifyRules.check(matches: true, expires: 1001, tries: 0, now: now) == .proven)
        #expect(NotifyRules.check(matches: false, expires: 1001, tries: 0, now: now) == .wrong(triesLeft: 4))
        #expect(NotifyRules.check(matches: true, expires: 1000, tries: 0, now: now) == .expired)
        #expect(NotifyRules.check(matches: true, expires: 2000, tries: NotifyRules.codeTries, now: now) == .expired)
        let made = Int64(1000 + NotifyRules.codeLifetime)
        #expect(NotifyRules.codeRetryAfter(expires: made, now: now) == Int(NotifyRules.codeInterval))
        #expect(NotifyRules.codeRetryAfter(expires: made, now: now.addingTimeInterval(NotifyRules.codeInterval)) == nil)
    }
}

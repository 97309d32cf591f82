import ChorusCore
import Foundation
import Testing

/// The rules of calendar feeds (CONTRACT §9).
@Suite struct CalendarFeedRulesTests {
    @Test func onlyWhatLinkMakesIsASecret() {
        #expect(CalendarFeedRules.secretLength == 48)
        #expect(CalendarFeedRules.isWellFormed(Substring(String(repeating: "0a", count: 24))))
        for bad in ["", String(repeating: "0", count: 47), String(repeating: "0", count: 49), String(repeating: "A", count: 48),
                    String(repeating: "g", count: 48), String(repeating: "-", count: 48)] {
            #expect(!CalendarFeedRules.isWellFormed(Substring(bad)), "\(bad)")
        }
    }

    @Test func aLinkServesAnEnabledMember() {
        #expect(CalendarFeedRules.serves(ownerDisabled: false, member: true))
        #expect(CalendarFeedRules.serves(ownerDisabled: false, member: nil))
        #expect(!CalendarFeedRules.serves(ownerDisabled: false, member: false))
        #expect(!CalendarFeedRules.serves(ownerDisabled: true, member: true))
        #expect(!CalendarFeedRules.serves(ownerDisabled: true, member: nil))
    }

    /// Last-Modified stays while the body's digest does, and moves to now (whole seconds)
    /// when it changes or nothing was kept.
    @Test func lastModifiedMovesOnlyWithTheBody() {
        let then = Date(timeIntervalSince1970: 1_796_000_000)
        let now = Date(timeIntervalSince1970: 1_796_003_600.75)
        let kept = CalendarFeedRules.lastModified(stored: ("abc", then), digest: "abc", now: now)
        #expect(kept.at == then && !kept.store)
        let moved = CalendarFeedRules.lastModified(stored: ("abc", then), digest: "def", now: now)
        #expect(moved.at == Date(timeIntervalSince1970: 1_796_003_600) && moved.store)
        let first = CalendarFeedRules.lastModified(stored: nil, digest: "abc", now: now)
        #expect(first.at == Date(timeIntervalSince1970: 1_796_003_600) && first.store)
    }

    @Test func finishedTasksStayThirtyDays() {
        let now = Date(timeIntervalSince1970: 1_796_000_000)
        #expect(CalendarFeedRules.finishedSince(now: now) == now.addingTimeInterval(-30 * 86400))
    }
}

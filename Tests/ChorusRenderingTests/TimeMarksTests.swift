import ChorusCore
import ChorusRendering
import Foundation
import Testing

/// Times kept as marks in event texts, written out for one reader's zone.
@Suite struct TimeMarksTests {
    /// Monday 7 Dec 2026, 10:00 UTC.
    let now = Date(timeIntervalSince1970: 1_796_637_600)

    func calendar(_ zone: String) throws -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        return calendar
    }

    func task(due: String?, done: Bool = false) -> TaskRecord {
        TaskRecord(id: 12, room: 3, roomName: "Flat", ownerID: nil, title: "Bins", notes: nil, done: done, progress: 0,
                   assignee: nil, creator: "alice", creatorID: 1, due: due, start: nil, estimate: nil, points: 1, parent: nil,
                   repeatRule: nil, rotate: nil, remind: nil, created: "2026-12-01T10:00:00Z", doneAt: nil, doneBy: nil,
                   computedProgress: nil)
    }

    @Test func clockInEachZone() throws {
        let text = "\(TimeMarks.clock(now)) bob in Flat: hi"
        #expect(TimeMarks.marks(text))
        #expect(TimeMarks.resolved(text, calendar: try calendar("Pacific/Auckland")) == "23:00 bob in Flat: hi")
        #expect(TimeMarks.resolved(text, calendar: try calendar("Europe/London")) == "10:00 bob in Flat: hi")
        #expect(TimeMarks.resolved(text, calendar: try calendar("America/St_Johns")) == "06:30 bob in Flat: hi")
    }

    /// The same words `Presentation.dueText` says in that zone at that moment.
    @Test func dueTextAsPresentationSaysIt() throws {
        for due in ["2026-12-08T09:00:00Z", "2026-12-07", "2026-12-10", "2026-12-07T08:00:00Z", "2026-12-01"] {
            let text = "reminder: #12 Bins, \(TimeMarks.dueText(task(due: due), now: now))"
            for zone in ["Pacific/Auckland", "Europe/London", "America/Los_Angeles"] {
                let calendar = try calendar(zone)
                let expected = "reminder: #12 Bins, " + Presentation(now: now, calendar: calendar).dueText(task(due: due))
                #expect(TimeMarks.resolved(text, calendar: calendar) == expected, "\(due) in \(zone)")
            }
        }
        #expect(TimeMarks.resolved("x, " + TimeMarks.dueText(task(due: "2026-12-08T09:00:00Z"), now: now),
                                   calendar: try calendar("Pacific/Auckland")) == "x, due tomorrow 22:00")
        #expect(TimeMarks.dueText(task(due: "2026-12-08", done: true), now: now) == "done")
        #expect(TimeMarks.dueText(task(due: nil), now: now) == "")
    }

    /// Text without marks is returned as it is; what only looks like a mark stays too.
    @Test func anythingElseStaysAsItIs() throws {
        let london = try calendar("Europe/London")
        for text in ["plain", "c1796637600", "\u{1E}c\u{1F}", "\u{1E}x12\u{1F}", "\u{1E}c12", "\u{1E}c12a\u{1F}",
                     "\u{1E}d1796637600 not-a-date\u{1F}", "\u{1E}c1234567890123\u{1F}", "é\u{1E}ü"] {
            #expect(TimeMarks.resolved(text, calendar: london) == text, "\(text.debugDescription)")
        }
        #expect(TimeMarks.resolved("ü \(TimeMarks.clock(now)) — \(TimeMarks.clock(now.addingTimeInterval(90)))", calendar: london)
                == "ü 10:00 — 10:01")
    }
}

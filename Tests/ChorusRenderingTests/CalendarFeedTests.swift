import ChorusCore
import ChorusRendering
import Foundation
import Testing

/// The feed document calendar apps subscribe to (RFC 5545, CONTRACT §9).
@Suite struct CalendarFeedTests {
    let changed = Date(timeIntervalSince1970: 1_796_000_000) // 2026-11-30 00:53:20 UTC

    var utc: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    func task(id: Int64 = 12, title: String = "Take out trash", notes: String? = nil, due: String? = "2026-12-05",
              done: Bool = false, progress: Int = 0) -> TaskRecord {
        TaskRecord(id: id, room: 3, roomName: "Flat 2B", ownerID: nil, title: title, notes: notes, done: done,
                   progress: progress, assignee: "bob", creator: "alice", creatorID: 1, due: due, start: nil, estimate: nil,
                   points: 1, parent: nil, repeatRule: nil, rotate: nil, remind: nil, created: "2026-11-29T18:04:05Z",
                   doneAt: nil, doneBy: nil)
    }

    func render(_ tasks: [TaskRecord], revision: Int = 0, name: String = "Chorus: Flat 2B") -> String {
        let bytes = CalendarFeed(name: name, calendar: utc).render(tasks.map { .init(task: $0, revision: revision, changed: changed) })
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Unfolded content lines.
    func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    @Test func calendarHeaderAndOneEventPerDatedTask() {
        let text = render([task(), task(id: 13, due: nil)])
        let all = lines(text)
        #expect(all.prefix(8) == ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chorus//Chorus 0.1//EN", "CALSCALE:GREGORIAN",
                                  "METHOD:PUBLISH", "X-WR-CALNAME:Chorus: Flat 2B", "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
                                  "X-PUBLISHED-TTL:PT1H"])
        #expect(all.filter { $0 == "BEGIN:VEVENT" }.count == 1)
        #expect(all.contains("UID:task-12@chorus"))
        #expect(all.last == "END:VCALENDAR")
        // Every line ends CRLF, never a bare LF.
        #expect(text.hasSuffix("\r\n"))
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    @Test func aDateAloneIsAllDayAndATimeIsUTC() {
        let day = lines(render([task(due: "2026-12-31")]))
        #expect(day.contains("DTSTART;VALUE=DATE:20261231"))
        #expect(day.contains("DTEND;VALUE=DATE:20270101"))
        let timed = lines(render([task(due: "2026-12-05T18:00:00Z")]))
        #expect(timed.contains("DTSTART:20261205T180000Z"))
        #expect(timed.contains("DTEND:20261205T183000Z"))
        #expect(!timed.contains { $0.hasPrefix("DTSTART;VALUE=DATE") })
    }

    /// DTSTAMP and LAST-MODIFIED are the task's last change, not the time of asking, and
    /// SEQUENCE is its revision: the same tasks give the same bytes.
    @Test func stampsComeFromTheTaskSoTheBodyIsDeterministic() {
        let first = render([task()], revision: 3)
        #expect(lines(first).contains("DTSTAMP:20261130T005320Z"))
        #expect(lines(first).contains("LAST-MODIFIED:20261130T005320Z"))
        #expect(lines(first).contains("SEQUENCE:3"))
        #expect(render([task()], revision: 3) == first)
        #expect(lines(render([task()], revision: 4)).contains("SEQUENCE:4"))
    }

    @Test func doneTasksAreMarked() {
        #expect(lines(render([task(done: true)])).contains("SUMMARY:✓ Take out trash"))
        #expect(lines(render([task()])).contains("SUMMARY:Take out trash"))
    }

    @Test func textIsEscaped() {
        let all = lines(render([task(title: "Milk, eggs; bread\\butter", notes: "line one\nline two")]))
        #expect(all.contains("SUMMARY:Milk\\, eggs\\; bread\\\\butter"))
        #expect(all.contains("DESCRIPTION:Room: Flat 2B\\nFor: bob\\nProgress: 0%\\nline one\\nline two"))
    }

    /// Lines fold at 75 octets, continuation lines start with a space and hold 74 more,
    /// and no UTF-8 sequence is split; unfolding gives the text back.
    @Test func longLinesFoldAt75OctetsOnCharacterBoundaries() {
        for title in [String(repeating: "a", count: 200), String(repeating: "é", count: 120), String(repeating: "🧹", count: 60),
                      "x" + String(repeating: "€", count: 90)] {
            let text = render([task(title: title)])
            for line in text.components(separatedBy: "\r\n") {
                #expect(line.utf8.count <= 75, "\(line.utf8.count) octets: \(line)")
                // A line that decodes back to the same bytes was not cut inside a character.
                #expect(Array(String(decoding: Array(line.utf8), as: UTF8.self).utf8) == Array(line.utf8))
                #expect(!line.unicodeScalars.contains("\u{FFFD}"))
            }
            #expect(lines(text).contains("SUMMARY:" + title))
        }
    }
}

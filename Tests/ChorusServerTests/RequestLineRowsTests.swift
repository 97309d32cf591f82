import ChorusClient
import ChorusCore
import Testing

/// The client picks a line's row as the server does, so the two new forms survive the
/// shell and the rows they live beside keep working.
@Suite struct RequestLineRowsTests {
    /// `CALENDAR me` is its own row; any other word is still CALENDAR's R.
    @Test func calendarRows() throws {
        #expect(try RequestLineBuilder.line(from: ["calendar", "ME"]) == "CALENDAR me")
        #expect(try RequestLineBuilder.line(from: ["CALENDAR", "mine"]) == "CALENDAR mine")
        #expect(try RequestLineBuilder.line(from: ["CALENDAR", "Flat 2B"]) == "CALENDAR \"Flat 2B\"")
        #expect(throws: ClientFailure.self) { try RequestLineBuilder.line(from: ["CALENDAR", "me", "now"]) }
    }

    /// `TASKS @NAME` keeps its `@`; verbs with only sub-verb rows still want one.
    @Test func housemateRowAndSubverbs() throws {
        #expect(try RequestLineBuilder.line(from: ["TASKS", "@bob", "done"]) == "TASKS @bob done")
        #expect(try RequestLineBuilder.line(from: ["TASKS", "Flat 2B", "all"]) == "TASKS \"Flat 2B\" all")
        #expect(try RequestLineBuilder.line(from: ["room", "show", "3"]) == "ROOM SHOW 3")
        #expect(throws: ClientFailure.self) { try RequestLineBuilder.line(from: ["ROOM", "fly"]) }
        #expect(throws: ClientFailure.self) { try RequestLineBuilder.line(from: ["ROOM"]) }
    }
}

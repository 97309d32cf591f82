import Foundation
import Testing

/// A calendar feed end to end, as a calendar app sees it: CALENDAR LINK over the line
/// protocol, then `GET /calendar/SECRET.ics` through the web door over real TLS and HTTP,
/// the body read by a real iCalendar parser (Debian's python3-icalendar).
@Suite struct CalendarFeedWebTests {
    @Test func subscribeRevalidateEditAndUnlink() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let flat = id(try alice.ok("ROOM CREATE Flat")["room"])
        let trash = id(try alice.ok("TASK ADD \(flat) \"Trash, bins; more\" due=2026-12-05 notes=\"by the door\"")["task"])
        try alice.ok("TASK ADD \(flat) Dishes due=2026-12-06T18:00")
        let url = try #require(try alice.ok("CALENDAR LINK \(flat)")["url"] as? String)
        let path = String(url.dropFirst("https://127.0.0.1:\(server.port)".count))
        #expect(path.hasPrefix("/calendar/") && path.hasSuffix(".ics"))

        let web = try WebClient(port: server.port)
        let first = try web.request("GET", path)
        #expect(first.status == 200)
        #expect(first.headers["content-type"] == "text/calendar; charset=utf-8")
        let etag = try #require(first.headers["etag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
        #expect(first.headers["last-modified"]?.hasSuffix(" GMT") == true)
        try Self.expectParsed(first.body, summaries: ["Trash, bins; more", "Dishes"])

        // Nothing changed: 304, and the same validators.
        let again = try web.request("GET", path, headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(again.headers["etag"] == etag && again.headers["last-modified"] == first.headers["last-modified"])

        // An edit: the old tag no longer matches, and the body says so.
        try alice.ok("TASK DONE \(trash)")
        let edited = try web.request("GET", path, headers: [("If-None-Match", etag)])
        #expect(edited.status == 200)
        #expect(edited.headers["etag"] != nil && edited.headers["etag"] != etag)
        try Self.expectParsed(edited.body, summaries: ["✓ Trash, bins; more", "Dishes"])

        // Unlinked: 404 at once, on the same kept-alive connection.
        try alice.ok("CALENDAR UNLINK \(flat)")
        #expect(try web.request("GET", path).status == 404)
    }

    /// Parses the body with python3-icalendar and checks the events' summaries, that a
    /// date alone is a date and a time a UTC date-time, and that each has UID and SEQUENCE.
    static func expectParsed(_ body: [UInt8], summaries: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let python = "/usr/bin/python3"
        guard (try? TLSProfileTests.run([python, "-c", "import icalendar"]).status) == 0 else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "python3-icalendar is missing (.ci/run installs it)",
                    sourceLocation: sourceLocation)
            return
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chorus-feed-\(UUID().uuidString).ics")
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import datetime, sys, icalendar
            calendar = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
            assert str(calendar.get("X-WR-CALNAME")).startswith("Chorus: ")
            for event in calendar.walk("VEVENT"):
                start = event.decoded("DTSTART")
                end = event.decoded("DTEND")
                if isinstance(start, datetime.datetime):
                    assert start.utcoffset() == datetime.timedelta(0) and end > start
                else:
                    assert end == start + datetime.timedelta(days=1)
                assert str(event["UID"]).startswith("task-") and int(event["SEQUENCE"]) >= 0
                event.decoded("DTSTAMP"); event.decoded("LAST-MODIFIED")
                print(str(event["SUMMARY"]))
            """
        let result = try TLSProfileTests.run([python, "-c", script, file.path])
        #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
        #expect(result.output.split(separator: "\n").map(String.init) == summaries, "\(result.output)", sourceLocation: sourceLocation)
    }
}

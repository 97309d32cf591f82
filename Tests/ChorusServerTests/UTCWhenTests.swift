import Foundation
import Testing

/// A time given in UTC (`YYYY-MM-DDTHH:MMZ`, what the web app sends for a time its person
/// picked in their own zone) is stored as that moment whatever the server's zone, and a
/// stored time sent back unchanged is the same moment.
@Suite struct UTCWhenTests {
    @Test func aUTCTimeIsThatMoment() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let task = object(try alice.ok("TASK ADD me Essay due=2026-12-05T18:30Z remind=2026-12-05T09:15:30Z")["task"])
        #expect(task["due"] as? String == "2026-12-05T18:30:00Z")
        #expect(task["remind"] as? String == "2026-12-05T09:15:30Z")
        let edited = object(try alice.ok("TASK EDIT \(id(task)) start=2026-12-01T00:00:00Z due=2026-12-05T18:30:00Z")["task"])
        #expect(edited["start"] as? String == "2026-12-01T00:00:00Z" && edited["due"] as? String == "2026-12-05T18:30:00Z")
        for bad in ["2026-12-05T18:30+01:00", "2026-12-05T24:00Z", "2026-12-05T18:30z", "2026-02-30T10:00Z"] {
            let failure = try alice.failure("TASK EDIT \(id(task)) due=\(bad)")
            #expect(failure.code == 422 && failure.message.contains("YYYY-MM-DDTHH:MM[Z]"), "\(bad): \(failure)")
        }
    }
}

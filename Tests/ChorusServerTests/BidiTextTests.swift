import Foundation
import Testing

/// CONTRACT §11, "text that cannot deceive" (issue 21's last finding): a title with U+202E
/// (right-to-left override) was accepted and shown to the others as it was. Names and
/// titles now refuse bidirectional controls; texts keep them, and text mode closes each
/// one a text opened before the text's field ends, so it cannot reorder what follows.
@Suite struct BidiTextTests {
    static let override = "\u{202E}"
    static let pdf = "\u{202C}"
    static let pdi = "\u{2069}"

    /// ROOM CREATE, ROOM RENAME, TASK ADD and TASK EDIT title= with U+202E: 422, nothing made.
    @Test func namesAndTitlesRefuseBidiControls() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let created = try alice.failure("ROOM CREATE Flat \(Self.override)B2")
        #expect(created.code == 422, "\(created)")
        #expect(created.message.contains("U+202E"), "\(created)")
        #expect((try alice.ok("ROOMS")["rooms"] as? [JSON])?.isEmpty == true)

        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        #expect(try alice.code("ROOM RENAME \(room) gpj.\(Self.override)exe") == 422)
        #expect(try alice.code("TASK ADD \(room) \"Dishes \u{2067}isolate\"") == 422)
        #expect(try alice.code("TASK ADD me \"\(Self.override)gnihsaw\"") == 422)
        let task = id(try alice.ok("TASK ADD \(room) Dishes")["task"])
        #expect(try alice.code("TASK EDIT \(task) title=\"Dishes \u{202B}embedded\"") == 422)
        #expect(object(try alice.ok("TASK SHOW \(task)")["task"])["title"] as? String == "Dishes")
        // A one-line title's other characters are still fine, right-to-left script included.
        #expect(object(try alice.ok("TASK EDIT \(task) title=\"כלים Dishes\"")["task"])["title"] as? String == "כלים Dishes")
    }

    /// A message with U+202E: bob's text-mode event line and HISTORY line close it with
    /// U+202C before the message ends (and nothing after it is inside the override); JSON
    /// carries the text exactly as sent.
    @Test func textModeClosesWhatAMessageOpens() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        let code = try #require(try alice.ok("ROOM INVITE \(room)")["code"] as? String)
        let bob = try server.user("bob")
        #expect(try bob.last("ROOM JOIN \(code)").hasPrefix("OK"))
        let carol = try server.device("carol")
        #expect(try carol.ok("ROOM JOIN \(code)")["room"] != nil)
        _ = try alice.drain()

        let text = "see \(Self.override)txt.exe and \u{2066}an isolate"
        try alice.ok("SAY \(room) \(text)")
        var line = try bob.nextEvent()
        while !line.contains(" in Flat: ") { line = try bob.nextEvent() }
        let closed = "see \(Self.override)txt.exe and \u{2066}an isolate\(Self.pdi)\(Self.pdf)"
        // The event's id follows the text: outside the override now.
        #expect(line.hasSuffix(": \(closed) [#\(try #require(line.firstMatch(of: /\[#(\d+)\]$/)).1)]"), "\(line.debugDescription)")

        let history = try bob.call("HISTORY \(room)")
        #expect(history.contains { $0.hasSuffix("alice: " + closed) }, "\(history.map(\.debugDescription))")

        var event = try carol.event()
        while event["event"] as? String != "message" { event = try carol.event() }
        #expect(object(event["message"])["text"] as? String == text, "\(event)")
        let messages = try carol.ok("HISTORY \(room)")["messages"] as? [JSON] ?? []
        #expect(messages.last?["text"] as? String == text)
    }

    /// Notes keep their controls; TASK SHOW in text mode closes them on the notes line, and
    /// a comment's line likewise.
    @Test func taskShowClosesNotesAndComments() throws {
        let server = try TestServer()
        let alice = try server.user("alice")
        let task = try alice.last("TASK ADD me Dishes notes=\"a \u{202D}b\"")
        #expect(task.hasPrefix("OK"), "\(task)")
        let id = try #require(task.firstMatch(of: /#(\d+)/).map { String($0.1) })
        #expect(try alice.last("COMMENT \(id) rinse \u{2068}first").hasPrefix("OK"))
        let shown = try alice.call("TASK SHOW \(id)")
        #expect(shown.contains { $0.hasSuffix("notes: a \u{202D}b\(Self.pdf)") }, "\(shown.map(\.debugDescription))")
        #expect(shown.contains { $0.hasSuffix("alice: rinse \u{2068}first\(Self.pdi)") }, "\(shown.map(\.debugDescription))")
    }
}

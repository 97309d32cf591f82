import ChorusProtocol
import Foundation
import Testing

/// 2026-11-29T18:04:05Z, the contract's example time.
private let exampleDate = Date(timeIntervalSince1970: 1_795_975_445)

@Suite("Event rendering")
struct EventTests {
    /// In text mode an event is one `* ...` line, ending with the id SYNC takes.
    @Test func textForm() {
        let event = Event(name: "message", id: 7, at: exampleDate, by: "bob", payload: [],
                          text: "18:04 bob in Flat 2B: who took my milk?")
        let rendered = event.rendered()
        #expect(String(decoding: rendered.text, as: UTF8.self) == "* 18:04 bob in Flat 2B: who took my milk? [#7]\r\n")
        #expect(rendered.bytes(for: .text) == rendered.text)
        let stored = Event.rendering(id: 8, name: "message", at: "2026-11-29T18:04:05Z", by: "bob", payloadJSON: Array("{}".utf8),
                                     text: "18:04 bob in Flat 2B: hi")
        #expect(String(decoding: stored.text, as: UTF8.self) == "* 18:04 bob in Flat 2B: hi [#8]\r\n")
    }

    /// An event that is not stored (`bye`) has no id to show; the id read back is the
    /// one the server put last, whatever the text holds.
    @Test func textFormIdReadBack() {
        let bye = Event(name: "bye", id: nil, at: exampleDate, by: nil, payload: [], text: "bye — closing")
        #expect(String(decoding: bye.rendered().text, as: UTF8.self) == "* bye — closing\r\n")
        #expect(Event.id(ofTextLine: "* bye — closing") == nil)
        let spoof = Event(name: "message", id: 413, at: exampleDate, by: "eve", payload: [], text: "18:04 eve in Flat: hi [#999]")
        let line = String(decoding: spoof.rendered().text.dropLast(2), as: UTF8.self)
        #expect(Event.id(ofTextLine: line) == 413)
        #expect(Event.id(ofTextLine: "* 18:04 eve in Flat: [#12a]") == nil)
        #expect(Event.id(ofTextLine: "* 18:04 eve in Flat: [#]") == nil)
    }

    /// Control characters in an event's text are made visible, so the event stays one line and cannot drive the terminal.
    @Test func textFormSanitised() {
        let event = Event(name: "message", id: 1, at: exampleDate, by: "eve", payload: [],
                          text: "hi\nOK fake reply \u{1b}[2J\r")
        let lines = wireLines(event.rendered().text)
        #expect(lines.count == 1)
        #expect(lines[0].hasPrefix("* hi\\nOK fake reply"))
        #expect(!lines[0].utf8.contains { $0 < 0x20 || $0 == 0x7f })
    }

    /// In JSON mode an event is `{"type":"event","event":..,"id":..,"at":..,"by":..}` followed by its payload, in that order.
    @Test func jsonForm() {
        let event = Event(name: "task.done", id: 42, at: exampleDate, by: "alice",
                          payload: [("room", .int(3)), ("task", .object([("id", .int(12)), ("title", .string("Take out trash"))]))],
                          text: "alice finished #12")
        let rendered = event.rendered()
        #expect(String(decoding: rendered.json, as: UTF8.self)
            == #"{"type":"event","event":"task.done","id":42,"at":"2026-11-29T18:04:05Z","by":"alice","room":3,"task":{"id":12,"title":"Take out trash"}}"# + "\r\n")
        #expect(rendered.bytes(for: .json) == rendered.json)
        #expect(topLevelKeys(String(decoding: rendered.json, as: UTF8.self)) == ["type", "event", "id", "at", "by", "room", "task"])
    }

    /// An event rendered from its already-encoded payload (as the log keeps it) has the
    /// same bytes in both forms as one rendered from the payload's values, also with an
    /// empty payload, awkward text and no author.
    @Test(arguments: [
        [("room", JSONValue.int(3)), ("task", .object([("id", .int(12)), ("title", .string("Take \"out\"\ntrash"))]))],
        [],
        [("message", .object([("text", .string("ünï \u{1b}[2J \\"))]))],
    ])
    func renderingFromEncodedPayload(payload: [(String, JSONValue)]) {
        for by in ["alice", nil] as [String?] {
            let event = Event(name: "task.done", id: 42, at: exampleDate, by: by, payload: payload, text: "alice\nfinished")
            var encoded: [UInt8] = []
            JSONValue.encodeFields(payload, into: &encoded)
            let spliced = Event.rendering(id: 42, name: "task.done", at: "2026-11-29T18:04:05Z", by: by, payloadJSON: encoded,
                                          text: "alice\nfinished")
            #expect(spliced.json == event.rendered().json)
            #expect(spliced.text == event.rendered().text)
        }
    }

    /// An event that is not stored (`bye`) and has no author shows `"id":null` and `"by":null`.
    @Test func jsonNullIDAndBy() throws {
        let event = Event(name: "bye", id: nil, at: exampleDate, by: nil, payload: [], text: "server shutting down")
        let output = event.rendered().json
        #expect(String(decoding: output, as: UTF8.self)
            == #"{"type":"event","event":"bye","id":null,"at":"2026-11-29T18:04:05Z","by":null}"# + "\r\n")
        let decoded = try parseJSONLine(output)
        #expect(decoded["id"] is NSNull)
        #expect(decoded["by"] is NSNull)
    }

    /// Event JSON with awkward user text is valid JSON, one line, that decodes back to the same text.
    @Test(arguments: awkwardStrings)
    func jsonValidWithAwkwardText(value: String) throws {
        let event = Event(name: "message", id: Int64.max, at: exampleDate, by: value,
                          payload: [("message", .object([("text", .string(value))]))], text: value)
        let rendered = event.rendered()
        #expect(rendered.json.filter { $0 == 0x0a }.count == 1)
        #expect(rendered.text.filter { $0 == 0x0a }.count == 1)
        let decoded = try parseJSONLine(rendered.json)
        #expect(decoded["type"] as? String == "event")
        #expect(decoded["event"] as? String == "message")
        #expect(decoded["by"] as? String == value)
        #expect((decoded["message"] as? [String: Any])?["text"] as? String == value)
        #expect(decoded["tag"] == nil, "events never carry a tag")
    }

    /// `at` is RFC 3339 in UTC with whole seconds: `YYYY-MM-DDTHH:MM:SSZ`.
    @Test func atIsRFC3339() throws {
        let event = Event(name: "x", id: 1, at: Date(timeIntervalSince1970: 1_709_251_199.75), by: nil, payload: [], text: "x")
        let decoded = try parseJSONLine(event.rendered().json)
        let at = try #require(decoded["at"] as? String)
        #expect(at == "2024-02-29T23:59:59Z")
        #expect(at.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil)
    }
}

@Suite("Timestamp")
struct TimestampTests {
    /// Known instants print as the contract's RFC 3339 UTC form.
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (1_795_975_445, "2026-11-29T18:04:05Z"),
        (1_795_975_445.999, "2026-11-29T18:04:05Z"),
        (946_684_799, "1999-12-31T23:59:59Z"),
        (946_684_800, "2000-01-01T00:00:00Z"),
        (1_709_251_199, "2024-02-29T23:59:59Z"),
        (-1.5, "1969-12-31T23:59:58Z"),
    ] as [(Double, String)])
    func knownInstants(seconds: Double, expected: String) {
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: seconds)) == expected)
    }

    /// Random instants agree with Foundation's ISO 8601 formatter and have the fixed shape.
    @Test func agreesWithFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SeededGenerator(seed: 2026)
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800, using: &generator)))
            let text = Timestamp.rfc3339(date)
            #expect(text == formatter.string(from: date))
            #expect(text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/) != nil)
        }
    }
}

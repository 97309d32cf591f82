@testable import ChorusProtocol
import Foundation
import Testing

private func text(_ reply: Reply, tag: String? = nil) -> String {
    String(decoding: reply.rendered(mode: .text, tag: tag), as: UTF8.self)
}

private func json(_ reply: Reply, tag: String? = nil) -> String {
    String(decoding: reply.rendered(mode: .json, tag: tag), as: UTF8.self)
}

/// Strings that are awkward to carry: quotes, backslashes, every kind of control
/// character, and non-ASCII text.
let awkwardStrings = [
    #"he said "hi""#,
    #"C:\path\to\file"#,
    "two\nlines",
    "cr\rlf\r\n",
    "tab\there",
    "esc \u{1b}[31mred\u{1b}[0m",
    "nul \u{0} bell \u{7} del \u{7f} us \u{1f}",
    "Café ☕",
    "👩‍👩‍👧 日本語 עברית",
    "",
    #"{"looks":"like json"}"#,
    "\u{2028}\u{2029}",
]

@Suite("Reply rendering")
struct ReplyTests {
    // MARK: Text mode

    /// A bare success is the line `OK`.
    @Test func okWithoutSummary() {
        #expect(text(.ok()) == "OK\r\n")
        #expect(text(.ok(""), tag: "t1") == "@t1 OK\r\n")
    }

    /// A success with a summary is `OK summary`.
    @Test func okWithSummary() {
        #expect(text(.ok("PONG hello")) == "OK PONG hello\r\n")
        #expect(text(.ok("PONG hello"), tag: "a.b:c") == "@a.b:c OK PONG hello\r\n")
    }

    /// An error is `ERR CODE message`, tagged when the request was.
    @Test func errorLine() {
        #expect(text(.error(.notFound("no such task 12"))) == "ERR 404 no such task 12\r\n")
        #expect(text(.error(.syntax("bad")), tag: "x") == "@x ERR 400 bad\r\n")
        #expect(text(.error(ChorusError(503, "shutting down"))) == "ERR 503 shutting down\r\n")
    }

    /// The success and error flags match the status.
    @Test func isOK() {
        #expect(Reply.ok("fine").isOK)
        #expect(!Reply.error(.conflict("taken")).isOK)
    }

    /// Every line of a tagged listing, body lines included, carries the tag.
    @Test func tagOnEveryLine() {
        let reply = Reply.ok("2 tasks", body: ["#12 Take out trash", "#15 Descale kettle"])
        let lines = wireLines(reply.rendered(mode: .text, tag: "L9"))
        #expect(lines == ["@L9 #12 Take out trash", "@L9 #15 Descale kettle", "@L9 OK 2 tasks"])
    }

    /// An untagged listing sends its body lines, then the final line.
    @Test func bodyThenFinalLine() {
        let reply = Reply.ok("done", body: ["first", "second"])
        #expect(text(reply) == "first\r\nsecond\r\nOK done\r\n")
    }

    /// An error can carry body lines too, and they come before the ERR line.
    @Test func errorWithBody() {
        let reply = Reply(status: .error(.conflict("2 rooms match")), body: ["#3 Flat", "#4 Flat"])
        #expect(wireLines(reply.rendered(mode: .text, tag: "e")) == ["@e #3 Flat", "@e #4 Flat", "@e ERR 409 2 rooms match"])
    }

    /// Body lines that start with OK, ERR or `*` are indented so a client never takes them for the final line or an event.
    @Test(arguments: [nil, "tg"] as [String?])
    func bodyLinesNeverLookFinal(tag: String?) {
        let body = ["OK computer", "OK", "ERR 500 not really", "ERRAND", "* not an event", "*", "**bold**", "normal"]
        let lines = wireLines(Reply.ok("8 lines", body: body).rendered(mode: .text, tag: tag))
        #expect(lines.count == body.count + 1)
        let prefix = tag.map { "@\($0) " } ?? ""
        for (line, original) in zip(lines.dropLast(), body) {
            #expect(line.hasPrefix(prefix))
            let rest = line.dropFirst(prefix.count)
            #expect(!rest.hasPrefix("OK") && !rest.hasPrefix("ERR") && !rest.hasPrefix("*"), "body line \(line.debugDescription)")
            #expect(rest.hasSuffix(original), "the text itself is still shown")
        }
        #expect(lines.last == prefix + "OK 8 lines")
    }

    /// A body line whose bytes start with OK, ERR or `*` followed by a combining mark is indented too: clients compare bytes, not grapheme clusters.
    @Test func bodyLinesWithCombiningMarksNeverLookFinal() {
        let body = ["OK\u{301} fake", "ERR\u{301} 500 fake", "*\u{301} fake event"]
        let output = Reply.ok("3", body: body).rendered(mode: .text, tag: nil)
        let lines = output.split(separator: 0x0a, omittingEmptySubsequences: false).dropLast(2)
        for line in lines {
            let start = Array(line.prefix(3))
            #expect(!start.starts(with: Array("OK".utf8)) && !start.starts(with: Array("ERR".utf8))
                    && !start.starts(with: Array("*".utf8)), "body line bytes \(start)")
        }
    }

    /// A newline in user text is shown as a visible `\n` instead of breaking the line.
    @Test func newlineMadeVisible() {
        #expect(text(.ok("title one\ntwo")) == "OK title one\\ntwo\r\n")
        #expect(text(.error(.badValue("bad\nvalue"))) == "ERR 422 bad\\nvalue\r\n")
        #expect(text(.ok("x", body: ["a\nb"])) == "a\\nb\r\nOK x\r\n")
    }

    /// Escape sequences and other control characters in user text never reach the terminal raw.
    @Test func controlCharactersNeverRaw() {
        let nasty = "red \u{1b}[31m bell \u{7} cr \r del \u{7f} nul \u{0} tab \t end"
        let reply = Reply(status: .error(.conflict(nasty)), body: [nasty, "OK" + nasty])
        for tag in [nil, "t"] as [String?] {
            let output = reply.rendered(mode: .text, tag: tag)
            let lines = wireLines(output)
            #expect(lines.count == 3)
            for line in lines {
                #expect(!line.utf8.contains { $0 < 0x20 || $0 == 0x7f }, "line \(line.debugDescription)")
                #expect(line.contains("red") && line.contains("end"), "the readable text is kept")
            }
        }
        #expect(text(.ok("a\u{1b}b")) != "OK a\u{1b}b\r\n")
    }

    /// C1 control characters (U+0080–U+009F, such as the one-character CSI U+009B or NEL U+0085) from user text never reach the terminal raw.
    @Test func c1ControlCharactersNeverRaw() {
        let nasty = "csi \u{9b}31m nel \u{85} end"
        let output = text(.ok(nasty, body: [nasty]))
        #expect(!output.unicodeScalars.contains { (0x80...0x9f).contains($0.value) }, "output \(output.debugDescription)")
    }

    /// Every text line ends with CRLF and there is no other CR or LF in the output.
    @Test func everyTextLineEndsWithCRLF() {
        for value in awkwardStrings {
            let reply = Reply(status: .ok(summary: value), body: [value, value])
            let output = reply.rendered(mode: .text, tag: "t")
            #expect(output.suffix(2) == [0x0d, 0x0a])
            #expect(wireLines(output).count == 3, "for \(value.debugDescription)")
            #expect(output.filter { $0 == 0x0a }.count == 3)
            #expect(output.filter { $0 == 0x0d }.count == 3)
        }
    }

    /// Non-ASCII text in text mode passes through unchanged.
    @Test func nonASCIITextUnchanged() {
        #expect(text(.ok("Café ☕ 日本語")) == "OK Café ☕ 日本語\r\n")
    }

    // MARK: JSON mode

    /// A JSON success is `{"type":"ok","tag":T,...fields}` with the fields in the order given.
    @Test func jsonOK() {
        let reply = Reply.ok("PONG x", [("pong", .string("x")), ("z", .int(1)), ("a", .bool(true)), ("m", .null)])
        #expect(json(reply, tag: "t") == #"{"type":"ok","tag":"t","pong":"x","z":1,"a":true,"m":null}"# + "\r\n")
    }

    /// Without a tag, the `tag` key is absent from JSON replies.
    @Test func jsonOKWithoutTag() {
        #expect(json(.ok("mode json", [("mode", .string("json"))])) == #"{"type":"ok","mode":"json"}"# + "\r\n")
        #expect(json(.ok()) == #"{"type":"ok"}"# + "\r\n")
    }

    /// A JSON error is `{"type":"error","tag":T,"code":N,"message":M}`.
    @Test func jsonError() {
        #expect(json(.error(.notFound("no such task 12")), tag: "t")
            == #"{"type":"error","tag":"t","code":404,"message":"no such task 12"}"# + "\r\n")
        #expect(json(.error(.slowDown("wait"))) == #"{"type":"error","code":429,"message":"wait"}"# + "\r\n")
    }

    /// JSON mode sends exactly one line and never the text-mode body lines or summary.
    @Test func jsonIsOneLineWithoutBody() throws {
        let reply = Reply.ok("2 tasks", body: ["#12 Take out trash", "OK fake"], [("count", .int(2))])
        let output = reply.rendered(mode: .json, tag: "b")
        #expect(output.filter { $0 == 0x0a }.count == 1)
        #expect(output.filter { $0 == 0x0d }.count == 1)
        #expect(String(decoding: output, as: UTF8.self) == #"{"type":"ok","tag":"b","count":2}"# + "\r\n")
        let errorOutput = Reply(status: .error(.conflict("x")), body: ["listing"]).rendered(mode: .json, tag: nil)
        #expect(!String(decoding: errorOutput, as: UTF8.self).contains("listing"))
    }

    /// JSON replies with awkward strings (quotes, backslashes, control characters, non-ASCII) are valid JSON that decodes back to the same text.
    @Test(arguments: awkwardStrings)
    func jsonRoundTripsThroughFoundation(value: String) throws {
        let ok = Reply.ok(value, body: [value], [("text", .string(value)), ("list", .array([.string(value)]))])
        let okOutput = ok.rendered(mode: .json, tag: "t:1")
        #expect(okOutput.filter { $0 == 0x0a }.count == 1, "one line even with newlines in the data")
        let decoded = try parseJSONLine(okOutput)
        #expect(decoded["type"] as? String == "ok")
        #expect(decoded["tag"] as? String == "t:1")
        #expect(decoded["text"] as? String == value)
        #expect((decoded["list"] as? [Any])?.first as? String == value)

        let failure = Reply.error(ChorusError(422, value)).rendered(mode: .json, tag: nil)
        #expect(failure.filter { $0 == 0x0a }.count == 1)
        let decodedError = try parseJSONLine(failure)
        #expect(decodedError["type"] as? String == "error")
        #expect(decodedError["tag"] == nil)
        #expect((decodedError["code"] as? NSNumber)?.intValue == 422)
        #expect(decodedError["message"] as? String == value)
    }

    /// JSON reply keys appear in the documented order: type, tag, then the result fields as written.
    @Test func jsonKeyOrder() {
        let reply = Reply.ok("", [("zeta", .int(1)), ("alpha", .object([("inner", .int(2))])), ("mid", .array([]))])
        #expect(topLevelKeys(json(reply, tag: "k")) == ["type", "tag", "zeta", "alpha", "mid"])
        #expect(topLevelKeys(json(.error(.forbidden("no")), tag: "k")) == ["type", "tag", "code", "message"])
    }
}

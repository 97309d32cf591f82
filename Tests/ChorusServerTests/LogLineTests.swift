import Foundation
import Testing
import ChorusTestSupport
@testable import ChorusServer

/// The logfmt line `Log` writes (CONTRACT §12): the keys in order, the time with
/// milliseconds, values quoted and escaped so one event stays one line.
@Suite struct LogLineTests {
    let date = Date(timeIntervalSince1970: 1_796_168_346.123_9)

    @Test func keysComeInOrderWithMilliseconds() {
        let line = Log.line(.info, "login", [("user", "ann"), ("addr", "192.0.2.7")], node: nil, at: date)
        #expect(line == "ts=2026-12-01T23:39:06.123Z level=info msg=login user=ann addr=192.0.2.7")
        let clustered = Log.line(.warn, "login failed", [], node: "a", at: Date(timeIntervalSince1970: 1_796_168_346))
        #expect(clustered == "ts=2026-12-01T23:39:06.000Z level=warn node=a msg=\"login failed\"")
    }

    @Test func valuesThatWouldBreakTheLineAreQuotedAndEscaped() {
        #expect(Log.value("plain") == "plain")
        #expect(Log.value("") == "\"\"")
        #expect(Log.value("two words") == "\"two words\"")
        #expect(Log.value("a=b") == "\"a=b\"")
        #expect(Log.value("say \"hi\"") == "\"say \\\"hi\\\"\"")
        #expect(Log.value("C:\\dir") == "\"C:\\\\dir\"")
        #expect(Log.value("one\ntwo\rthree\tfour") == "\"one\\ntwo\\rthree\\tfour\"")
        #expect(Log.value("bell\u{7}del\u{7F}c1\u{85}ls\u{2028}") == "\"bell\\u0007del\\u007Fc1\\u0085ls\\u2028\"")
        #expect(Log.value("zoë") == "zoë")
        #expect(Log.key("user name") == "_")
    }

    /// Every field value, whatever it holds, parses back to itself.
    @Test func quotedValuesParseBack() throws {
        let tricky = ["x", "a b", "q\"q", "b\\s", "n\nl", "=", "\u{1B}[31m", "é ü"]
        for value in tricky {
            let line = Log.line(.error, "m", [("v", value)], node: "n 1", at: date)
            #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{1B}"))
            let fields = try #require(Logfmt.parse(line), "\(line)")
            #expect(fields.first { $0.key == "v" }?.value == value, "\(line)")
            #expect(fields.first { $0.key == "node" }?.value == "n 1")
        }
    }
}

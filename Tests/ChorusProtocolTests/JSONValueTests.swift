import ChorusProtocol
import Foundation
import Testing

@Suite("JSONValue")
struct JSONValueTests {
    /// Scalars encode as compact JSON literals.
    @Test func scalars() {
        #expect(JSONValue.null.encoded == "null")
        #expect(JSONValue.bool(true).encoded == "true")
        #expect(JSONValue.bool(false).encoded == "false")
        #expect(JSONValue.int(0).encoded == "0")
        #expect(JSONValue.int(42).encoded == "42")
        #expect(JSONValue.string("hi").encoded == #""hi""#)
    }

    /// Negative numbers and the extremes of Int64 are written exactly.
    @Test func integers() {
        #expect(JSONValue.int(-1).encoded == "-1")
        #expect(JSONValue.int(-40).encoded == "-40")
        #expect(JSONValue.int(Int64.max).encoded == "9223372036854775807")
        #expect(JSONValue.int(Int64.min).encoded == "-9223372036854775808")
        #expect(JSONValue.int(Int(12)) == JSONValue.int(Int64(12)))
    }

    /// Digits go straight into a byte buffer, after what is there, for every UInt64.
    @Test func decimalBytes() {
        var out = Array("n=".utf8)
        DecimalBytes.append(0, to: &out)
        DecimalBytes.append(7, to: &out)
        out.append(UInt8(ascii: " "))
        DecimalBytes.append(UInt64.max, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "n=07 18446744073709551615")
    }

    /// An optional string is a string when present and `null` when absent.
    @Test func optionalString() {
        #expect(JSONValue.string(String?.none) == .null)
        #expect(JSONValue.string(String?.some("x")) == .string("x"))
    }

    /// Nested arrays and objects encode compactly with object keys in the order given.
    @Test func nested() {
        let value = JSONValue.object([
            ("z", .array([.int(1), .array([.int(-2), .array([])]), .object([])])),
            ("a", .object([("c", .null), ("b", .bool(true)), ("list", .array([.string("x"), .null]))])),
            ("n", .int(Int64.max)),
        ])
        #expect(value.encoded == #"{"z":[1,[-2,[]],{}],"a":{"c":null,"b":true,"list":["x",null]},"n":9223372036854775807}"#)
        #expect(topLevelKeys(value.encoded) == ["z", "a", "n"])
    }

    /// Nested output is valid JSON that Foundation reads back with the same values.
    @Test func nestedParsesWithFoundation() throws {
        let value = JSONValue.object([
            ("rooms", .array([
                .object([("id", .int(3)), ("name", .string("Flat 2B")), ("members", .array([.string("alice"), .string("bob")]))]),
                .object([("id", .int(-7)), ("name", .string("Café ☕ \"quoted\"\n")), ("members", .array([]))]),
            ])),
            ("more", .bool(false)),
            ("nothing", .null),
        ])
        var bytes = value.encoded.utf8.map { $0 }
        bytes.append(contentsOf: [0x0d, 0x0a])
        let decoded = try parseJSONLine(bytes)
        let rooms = try #require(decoded["rooms"] as? [[String: Any]])
        #expect(rooms.count == 2)
        #expect((rooms[0]["id"] as? NSNumber)?.int64Value == 3)
        #expect(rooms[0]["members"] as? [String] == ["alice", "bob"])
        #expect((rooms[1]["id"] as? NSNumber)?.int64Value == -7)
        #expect(rooms[1]["name"] as? String == "Café ☕ \"quoted\"\n")
        #expect((decoded["more"] as? NSNumber)?.boolValue == false)
        #expect(decoded["nothing"] is NSNull)
    }

    /// Quotes, backslashes and all control characters are escaped; other characters, `/` and non-ASCII included, pass through.
    @Test func stringEscapes() {
        #expect(JSONValue.string(#"a"b\c"#).encoded == #""a\"b\\c""#)
        #expect(JSONValue.string("\n\r\t").encoded == #""\n\r\t""#)
        #expect(JSONValue.string("\u{0}\u{1}\u{1b}\u{1f}\u{7f}").encoded == #""\u0000\u0001\u001b\u001f\u007f""#)
        #expect(JSONValue.string("a/b Café ☕").encoded == "\"a/b Café ☕\"")
        #expect(JSONValue.string("").encoded == #""""#)
        // Runs of plain text between escapes, at the start, middle and end, are kept whole.
        #expect(JSONValue.string("\"lead ☕ mid\nmore\\x tail é").encoded == #""\"lead ☕ mid\nmore\\x tail é""#)
        #expect(JSONValue.string("plain text with no escape at all").encoded == #""plain text with no escape at all""#)
    }

    /// Every one of the 33 ASCII control characters round-trips through Foundation's JSON parser.
    @Test func everyControlCharacterRoundTrips() throws {
        let all = String(decoding: Array(0..<0x20) + [0x7f] as [UInt8], as: UTF8.self)
        var bytes = Array(JSONValue.object([("s", .string(all))]).encoded.utf8)
        #expect(!bytes.contains { $0 < 0x20 || $0 == 0x7f }, "no raw control bytes in the output")
        bytes.append(contentsOf: [0x0d, 0x0a])
        #expect(try parseJSONLine(bytes)["s"] as? String == all)
    }

    /// Object keys are escaped like strings.
    @Test func keysEscaped() {
        #expect(JSONValue.object([("a\"b\n", .int(1))]).encoded == #"{"a\"b\n":1}"#)
    }

    /// Encoding appends to what is already in the buffer.
    @Test func encodeAppends() {
        var out = Array("x=".utf8)
        JSONValue.array([.int(1), .int(2)]).encode(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "x=[1,2]")
    }

    /// Equality respects order: the same fields in another order are a different reply.
    @Test func equality() {
        #expect(JSONValue.object([("a", .int(1)), ("b", .int(2))]) == .object([("a", .int(1)), ("b", .int(2))]))
        #expect(JSONValue.object([("a", .int(1)), ("b", .int(2))]) != .object([("b", .int(2)), ("a", .int(1))]))
        #expect(JSONValue.object([("a", .int(1))]) != .object([("a", .int(1)), ("b", .int(2))]))
        #expect(JSONValue.array([.int(1), .null]) != .array([.null, .int(1)]))
        #expect(JSONValue.int(1) != .bool(true))
        #expect(JSONValue.string("1") != .int(1))
        #expect(JSONValue.null == .null)
    }
}

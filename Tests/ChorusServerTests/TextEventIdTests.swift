import ChorusClient
import ChorusProtocol
import Foundation
import Testing

/// A person in text mode sees each stored event's id at the end of its line, `[#ID]`,
/// and can hand it to `SYNC` after a disconnect to get exactly what came after it.
@Suite struct TextEventIdTests {
    @Test func textEventCarriesTheIdSyncTakes() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        let bob = try server.user("bob")
        let watcher = try server.device("bob", label: "bob in JSON", register: false)
        let room = id(try alice.ok("ROOM CREATE Flat")["room"])
        try alice.add("bob", to: room)
        // bob is a stranger to alice: invited, then in once he accepted.
        #expect(try bob.nextEvent().contains("invited you to Flat"))
        _ = try bob.nextEvent()
        #expect(try watcher.event()["event"] as? String == "room.invited")
        #expect(try watcher.event()["event"] as? String == "member.added")

        try alice.ok("SAY \(room) hello")
        let line = try bob.nextEvent()
        #expect(line.hasPrefix("* ") && line.contains("alice in Flat: hello"), "\(line)")
        let shown = try #require(Self.trailingID(line), "no [#ID] at the end of \(line)")
        // The same id the JSON form of the same event has.
        #expect(try watcher.event()["id"] as? Int == Int(shown))

        // Bob drops; meanwhile two more messages.
        bob.connection.close()
        try alice.ok("SAY \(room) second")
        try alice.ok("SAY \(room) third")
        let again = try server.client()
        #expect(try again.last("LOGIN bob \"\(defaultPassword)\"").hasPrefix("OK"))
        let reply = try again.call("SYNC \(shown)")
        #expect(reply.last == "OK 2 events after #\(shown)", "\(reply)")
        let body = reply.dropLast()
        #expect(body.count == 2)
        #expect(body.first?.contains("alice in Flat: second") == true && body.last?.contains("alice in Flat: third") == true,
                "\(reply)")
        #expect(!reply.contains { $0.contains("hello") })
    }

    /// What a person reads: the number between `[#` and the closing `]` at the line's end.
    static func trailingID(_ line: String) -> Int64? {
        guard line.hasSuffix("]"), let open = line.range(of: " [#", options: .backwards) else { return nil }
        return Int64(line[open.upperBound..<line.index(before: line.endIndex)])
    }
}

import Foundation
import Testing

/// The `chorus` client and unread markers, through the real binary: it says which rooms
/// have news when it starts, and marks a room read once it printed that room's news.
@Suite(.timeLimit(.minutes(10))) struct ClientUnreadTests {
    typealias Household = ClientProcessTests.Household

    /// bob's other device, in JSON mode, watching for `room.read`.
    private func watcher(_ house: Household) throws -> Device {
        let device = try Device(client: try house.server.client(), user: "bob", label: "bob's phone")
        try device.ok("LOGIN bob \"\(ClientProcessTests.password)\"")
        return device
    }

    /// "chorus: 2 new in Flat 2B" at the start; a message printed live is marked read (his
    /// phone hears `room.read` up to its id); the phone's own READ is not printed.
    @Test func saysWhatIsNewAndMarksWhatItPrinted() throws {
        let house = try Household()
        #expect(try house.alice.last("SAY \(house.room) bins tonight").hasPrefix("OK"))
        #expect(try house.alice.last("SAY \(house.room) and the glass").hasPrefix("OK"))
        let phone = try watcher(house)

        let session = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("chorus: 2 new in Flat 2B", onErrors: true), "\(session.stderr.text)")
        #expect(session.waitForOutput("OK logged in as bob"))
        // Nothing printed yet: the start-up line alone marks nothing read.
        try phone.expectQuiet("before the terminal printed anything")

        #expect(try house.alice.last("SAY \(house.room) dinner at seven").hasPrefix("OK"))
        let said = try phone.event()
        #expect(said["event"] as? String == "message")
        let id = try #require(said["id"] as? Int)
        #expect(session.waitForOutput("alice in Flat 2B: dinner at seven"))
        // Long: under ThreadSanitizer on a loaded machine the client took over 15 s once.
        let read = try phone.event(timeout: 60)
        #expect(read["event"] as? String == "room.read" && read["room"] as? Int == house.room, "\(read)")
        #expect(read["last_read"] as? Int == id && read["unread"] as? Int == 0, "\(read)")
        let rooms = try phone.ok("ROOMS")["rooms"] as? [JSON] ?? []
        #expect(rooms.first?["unread"] as? Int == 0)

        // The phone reads too: the terminal is told, and prints nothing of it.
        #expect(try house.alice.last("SAY \(house.room) one more").hasPrefix("OK"))
        _ = try phone.event()
        #expect(try phone.ok("READ \(house.room) 999999999")["unread"] as? Int == 0)
        session.type("PING done")
        #expect(session.waitForOutput("OK PONG done"))
        session.closeInput()
        let result = session.finish()
        #expect(result.status == 0)
        #expect(!result.stdout.contains("* read Flat 2B"), "\(result.stdout)")
        #expect(!result.stdout.contains("@chorus."), "the client's own requests stay hidden")

        // Nothing new: no such line at the next start.
        let again = try ChorusRun(house.login("bob"), home: house.home.path, pipeInput: true)
        again.type("PING done")
        again.closeInput()
        let quiet = again.finish()
        #expect(quiet.stdout.contains("OK PONG done"))
        #expect(!quiet.stderr.contains(" new in "), "\(quiet.stderr)")
    }

    /// JSON mode (`--json`) reads the same from the login reply's `unread`.
    @Test func saysWhatIsNewInJSONMode() throws {
        let house = try Household()
        #expect(try house.alice.last("SAY \(house.room) bins tonight").hasPrefix("OK"))
        let session = try ChorusRun(house.login("bob") + ["--json"], home: house.home.path, pipeInput: true)
        #expect(session.waitForOutput("chorus: 1 new in Flat 2B", onErrors: true), "\(session.stderr.text)")
        session.closeInput()
        #expect(session.finish().status == 0)
    }
}

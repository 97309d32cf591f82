import Foundation
import Testing

/// No id is handed out twice: deleting the newest room or task, then making another,
/// gives a new number, also after a restart; so a stranger's new household never takes
/// over the number that old chat lines, SYNC replays, calendar UIDs and bots point at.
@Suite struct NeverReusedIDsEndToEndTests {
    @Test func deletedIDsStayRetiredAcrossRestarts() throws {
        let server = try TestServer()
        var alice = try server.device("alice")
        _ = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        let task = id(try alice.ok("TASK ADD \(room) \"Take out bins\"")["task"])
        let message = id(try alice.ok("SAY \(room) bins tonight")["message"])
        let comment = id(try alice.ok("COMMENT \(task) on it")["comment"])
        let mine = id(try alice.ok("TASK ADD me \"Call landlord\"")["task"])
        try alice.ok("TASK DELETE \(mine)")
        try alice.ok("TASK DELETE \(task)")
        try alice.ok("ROOM DELETE \(room)")

        // Once before the restart (nothing cached) and once after (nothing in memory).
        let before = id(try alice.ok("ROOM CREATE Kitchen")["room"])
        #expect(before > room)
        try server.restart()
        alice = try server.device("alice", register: false)
        let bob = try server.device("bob", register: false)
        let strangers = id(try bob.ok("ROOM CREATE Stranger's flat")["room"])
        #expect(strangers > before)
        let newTask = id(try bob.ok("TASK ADD \(strangers) \"Water plants\"")["task"])
        #expect(newTask > mine && newTask > task)
        #expect(id(try bob.ok("SAY \(strangers) hello")["message"]) > message)
        #expect(id(try bob.ok("COMMENT \(newTask) done soon")["comment"]) > comment)
        // What alice's old ids name is gone for everyone, not someone else's.
        #expect(try bob.code("ROOM SHOW \(room)") == 404)
        #expect(try bob.code("TASK SHOW \(task)") == 404)
        #expect(try alice.code("TASK SHOW \(task)") == 404)
    }
}

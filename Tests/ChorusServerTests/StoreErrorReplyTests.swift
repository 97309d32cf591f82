import Foundation
import Testing

/// The store's duplicates reach the client as 409 with the words chosen for them, through
/// the one mapping of store errors to protocol codes (`AccountService.clientError`).
@Suite struct StoreErrorReplyTests {
    /// Adding a member twice and a second token with a taken label are 409s that say what
    /// is taken; nothing is changed by either.
    @Test func duplicatesAreConflictsWithTheirOwnWords() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        _ = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.ok("ROOM ADD \(room) bob")
        let again = try alice.failure("ROOM ADD \(room) bob")
        #expect(again.code == 409)
        #expect(again.message == "bob is already a member of Flat 2B")

        try alice.ok("TOKEN CREATE cron")
        let label = try alice.failure("TOKEN CREATE cron")
        #expect(label.code == 409)
        #expect(label.message == "you already have a token labelled cron")
        #expect((try alice.ok("TOKEN LIST")["tokens"] as? [Any])?.count == 1)
    }
}

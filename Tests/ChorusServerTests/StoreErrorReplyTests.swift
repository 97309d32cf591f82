import ChorusProtocol
import ChorusStore
import Foundation
import Testing
@testable import ChorusServer

/// The store's refusals reach the client with the words chosen for them, through
/// the one mapping of store errors to protocol codes (`AccountService.clientError`).
@Suite struct StoreErrorReplyTests {
    /// Adding a member twice and a second token with a taken label are 409s that say what
    /// is taken; nothing is changed by either.
    @Test func duplicatesAreConflictsWithTheirOwnWords() throws {
        let server = try TestServer()
        let alice = try server.device("alice")
        _ = try server.device("bob")
        let room = id(try alice.ok("ROOM CREATE Flat 2B")["room"])
        try alice.add("bob", to: room)
        let again = try alice.failure("ROOM ADD \(room) bob")
        #expect(again.code == 409)
        #expect(again.message == "bob is already a member of Flat 2B")

        try alice.ok("TOKEN CREATE cron")
        let label = try alice.failure("TOKEN CREATE cron")
        #expect(label.code == 409)
        #expect(label.message == "you already have a token labelled cron")
        #expect((try alice.ok("TOKEN LIST")["tokens"] as? [Any])?.count == 1)
    }

    /// A store's own reason keeps its kind's code; without one, the wire's catalogue words it.
    @Test func eachKindHasItsCodeAndAFallbackWording() {
        #expect(AccountService.clientError(StoreError(.unavailable, reason: "shutting down")) == ChorusError(503, "shutting down"))
        #expect(AccountService.clientError(StoreError(.constraint)) == ChorusError(409, "conflicts with existing data"))
        #expect(AccountService.clientError(StoreError(.notFound)) == ChorusError(404, "not found"))
        #expect(AccountService.clientError(StoreError(.full)) == ChorusError(503, "storage full"))
        #expect(AccountService.clientError(StoreError(.unavailable)) == ChorusError(503, "storage unavailable"))
        #expect(AccountService.clientError(StoreError(.failed, message: "disk I/O error")) == ChorusError(500, "storage error"))
    }
}

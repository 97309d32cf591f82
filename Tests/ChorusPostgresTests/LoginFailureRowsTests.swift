import ChorusCore
import ChorusPostgres
import ChorusStore
import Foundation
import Testing
import ChorusTestSupport

/// The login throttle's rows every node shares (`PostgresStore+LoginFailures.swift`): an
/// attempt is counted before the hash under both rows' locks, blocked attempts count
/// nothing, a success clears both rows, quiet rows are forgotten.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct LoginFailureRowsTests {
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    /// Node a counted an attempt and has not committed: node b's attempt on the same name
    /// waits for it (and then sees its count), instead of passing the same check.
    @Test func anAttemptWaitsForAnotherNodesCountOfTheSameName() throws {
        let nodes = try CrossNodeLockTests.TwoNodes()
        for _ in 0..<4 {
            #expect(try nodes.a.syncPostgres { try $0.admitLoginAttempt(name: "eve", address: "10.0.0.1", now: Self.now) } == nil)
        }
        let (second, waited) = try nodes.race(first: { db, reached in
            let fifth = try db.admitLoginAttempt(name: "eve", address: "10.0.0.1", now: Self.now)
            #expect(fifth == nil)
            reached()
        }, second: { db in try db.admitLoginAttempt(name: "eve", address: "10.0.0.1", now: Self.now) })
        #expect(waited, "node b counted while node a's count was open")
        #expect(second == LoginThrottle.firstDelay, "the sixth attempt, after a's fifth, must be blocked")
    }

    /// Five per name and address, then 429 for 30 s, doubling; 100 per name from anywhere;
    /// a success clears both; a blocked attempt counts nothing.
    @Test func theLimitsAndTheirReset() throws {
        let nodes = try CrossNodeLockTests.TwoNodes()
        func admit(_ address: String, at now: Date = Self.now) throws -> Double? {
            try nodes.b.syncPostgres { try $0.admitLoginAttempt(name: "eve", address: address, now: now) }
        }
        for _ in 0..<5 { #expect(try admit("a") == nil) }
        #expect(try admit("a") == 30)
        #expect(try admit("a", at: Self.now.addingTimeInterval(10)) == 20, "a blocked attempt moved the block")
        #expect(try admit("a", at: Self.now.addingTimeInterval(31)) == nil, "the block should be over")
        #expect(try admit("a", at: Self.now.addingTimeInterval(31)) == 60, "the sixth failure doubles the delay")
        #expect(try admit("b") == nil, "another address is not blocked")

        try nodes.a.syncPostgres { try $0.forgetLoginFailures(name: "eve", address: "a") }
        #expect(try admit("a", at: Self.now.addingTimeInterval(33)) == nil)

        for index in 0..<99 { #expect(try admit("spread \(index % 20)") == nil) }
        #expect(try admit("fresh") != nil, "past 100 in all, every address is blocked")
    }

    /// A count that blocks nobody and saw no failure for an hour is forgotten; a blocking one stays.
    @Test func quietCountsAreForgotten() throws {
        let nodes = try CrossNodeLockTests.TwoNodes()
        try nodes.a.syncPostgres { db in
            _ = try db.admitLoginAttempt(name: "quiet", address: "a", now: Self.now)
            for _ in 0..<5 { _ = try db.admitLoginAttempt(name: "loud", address: "a", now: Self.now.addingTimeInterval(3000)) }
            try db.forgetQuietLoginFailures(now: Self.now.addingTimeInterval(3700))
        }
        let left = try nodes.a.syncPostgres { db in
            try db.connection.query("SELECT name FROM login_failures ORDER BY name, address").rows.compactMap { $0.string(0) }
        }
        #expect(left == ["loud", "loud"])
    }
}

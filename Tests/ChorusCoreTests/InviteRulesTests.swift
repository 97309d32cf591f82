import ChorusCore
import Foundation
import Testing

/// Invite codes: how many uses, how long they last, and who they let in.
@Suite struct InviteRulesTests {
    let now = Fixture.now
    let calendar = Fixture.utc()

    func invite(usesLeft: Int? = nil, expires: String? = "2026-12-07T12:00:00Z") -> InviteRecord {
        InviteRecord(code: "ABCD-EFGH-JKMN-PQRS", room: 3, usesLeft: usesLeft, expires: expires, createdBy: "alice",
                     created: "2026-11-30T12:00:00Z")
    }

    @Test func codesLastAWeekOrUntilAFutureTime() throws {
        #expect(try InviteRules.expiry(nil, now: now, calendar: calendar) == now.addingTimeInterval(7 * 86400))
        // A date alone lasts to its end, so "today" is still ahead at noon.
        let today = try InviteRules.expiry(try DateWord(parsing: "today"), now: now, calendar: calendar)
        #expect(Timestamp.rfc3339(today) == "2026-11-30T23:59:59Z")
        #expect(try InviteRules.expiry(try DateWord(parsing: "+2h"), now: now, calendar: calendar) == now.addingTimeInterval(7200))
        #expect(throws: DomainError.expiryInPast("2026-11-29")) { try InviteRules.expiry(try DateWord(parsing: "2026-11-29"), now: now, calendar: calendar) }
    }

    @Test func expiredAtItsEndExactly() {
        #expect(!InviteRules.isExpired(invite(expires: nil), now: now, calendar: calendar))
        #expect(!InviteRules.isExpired(invite(expires: "2026-11-30T12:00:01Z"), now: now, calendar: calendar))
        #expect(InviteRules.isExpired(invite(expires: "2026-11-30T12:00:00Z"), now: now, calendar: calendar))
        #expect(!InviteRules.isExpired(invite(expires: "2026-11-30"), now: now, calendar: calendar))
        #expect(InviteRules.isExpired(invite(expires: "2026-11-29"), now: now, calendar: calendar))
    }

    @Test func joiningNeedsALiveCodeAndNoMembership() throws {
        let live = invite(usesLeft: 2)
        #expect(try InviteRules.requireJoinable(live, typed: "abcd", isMember: false, wasRemoved: false, now: now, calendar: calendar) == live)
        #expect(try InviteRules.requireJoinable(invite(usesLeft: nil), typed: "x", isMember: false, wasRemoved: false, now: now, calendar: calendar).room == 3)
        #expect(throws: DomainError.noSuchInvite("abcd")) {
            try InviteRules.requireJoinable(nil, typed: "abcd", isMember: false, wasRemoved: false, now: now, calendar: calendar)
        }
        #expect(throws: DomainError.noSuchInvite("abcd")) {
            try InviteRules.requireJoinable(invite(usesLeft: 0), typed: "abcd", isMember: false, wasRemoved: false, now: now, calendar: calendar)
        }
        #expect(throws: DomainError.noSuchInvite("abcd")) {
            try InviteRules.requireJoinable(invite(expires: "2026-11-01T00:00:00Z"), typed: "abcd", isMember: true, wasRemoved: false, now: now, calendar: calendar)
        }
        #expect(throws: DomainError.alreadyInRoom(3)) {
            try InviteRules.requireJoinable(live, typed: "abcd", isMember: true, wasRemoved: false, now: now, calendar: calendar)
        }
    }

    @Test func aRemovalHoldsAgainstEveryLiveCode() throws {
        let live = invite(usesLeft: nil)
        #expect(throws: DomainError.removedFromRoom(3)) {
            try InviteRules.requireJoinable(live, typed: "abcd", isMember: false, wasRemoved: true, now: now, calendar: calendar)
        }
        // A dead code is still just a dead code: the removal tells nothing more.
        #expect(throws: DomainError.noSuchInvite("abcd")) {
            try InviteRules.requireJoinable(invite(usesLeft: 0), typed: "abcd", isMember: false, wasRemoved: true, now: now, calendar: calendar)
        }
    }
}

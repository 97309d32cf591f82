import ChorusCore
import Foundation
import Testing

/// `--register-rate` and `--registration` (CONTRACT §11): the decisions made from the
/// store's facts.
@Suite struct SignUpRulesTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theRateCountsTheLastHour() {
        #expect(SignUpRules.retryAfter(recent: [], limit: 5, now: now) == nil)
        let four = (1...4).map { now.addingTimeInterval(Double(-$0 * 60)) }
        #expect(SignUpRules.retryAfter(recent: four, limit: 5, now: now) == nil)
        // The fifth: the oldest (4 minutes ago) frees a slot 56 minutes from now.
        let five = four + [now]
        #expect(SignUpRules.retryAfter(recent: five, limit: 5, now: now) == 56 * 60)
        // Order does not matter; a fraction of a second rounds up; never 0.
        #expect(SignUpRules.retryAfter(recent: five.reversed(), limit: 5, now: now.addingTimeInterval(0.5)) == 56 * 60)
        #expect(SignUpRules.retryAfter(recent: [now.addingTimeInterval(-3600)], limit: 1, now: now) == 1)
        // More than the limit (it was lowered): enough must leave to get below it.
        let seven = (0..<7).map { now.addingTimeInterval(Double(-$0 * 300)) }
        // Seven in the window, two allowed: six must leave, the sixth oldest 5 minutes ago.
        #expect(SignUpRules.retryAfter(recent: seven, limit: 2, now: now) == 3600 - 300)
        #expect(SignUpRules.windowStart(now: now) == now.addingTimeInterval(-3600))
    }

    @Test func inviteOnlyNeedsACodeExceptForTheFirstAccount() throws {
        try SignUpRules.requireAllowed(mode: .open, invited: false) { Issue.record("open mode asks nothing"); return false }
        try SignUpRules.requireAllowed(mode: .invite, invited: true) { Issue.record("a code needs no count"); return false }
        try SignUpRules.requireAllowed(mode: .invite, invited: false) { true }
        #expect(throws: DomainError.signUpByInviteOnly) {
            try SignUpRules.requireAllowed(mode: .invite, invited: false) { false }
        }
    }

    @Test func aBadCodeIsRoomJoinsErrorOnAnOpenServerAnd403OnAnInviteOnlyOne() throws {
        let invite = InviteRecord(code: "AAAA-BBBB-CCCC-DDDD", room: 3, usesLeft: 1, expires: nil, createdBy: "alice", created: "")
        #expect(try SignUpRules.requireUsableInvite(invite, typed: "x", mode: .invite, now: now) == invite)
        let usedUp = InviteRecord(code: invite.code, room: 3, usesLeft: 0, expires: nil, createdBy: "alice", created: "")
        #expect(throws: DomainError.noSuchInvite("x")) { try SignUpRules.requireUsableInvite(usedUp, typed: "x", mode: .open, now: now) }
        #expect(throws: DomainError.signUpInviteUnusable("x")) { try SignUpRules.requireUsableInvite(nil, typed: "x", mode: .invite, now: now) }
        let expired = InviteRecord(code: invite.code, room: 3, usesLeft: nil, expires: "2020-01-01T00:00:00Z", createdBy: "alice", created: "")
        #expect(throws: DomainError.signUpInviteUnusable("x")) {
            try SignUpRules.requireUsableInvite(expired, typed: "x", mode: .invite, now: now)
        }
    }
}

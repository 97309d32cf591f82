import Foundation

/// What an invite code may be and when it lets someone in (Protocol.md, ROOM INVITE/JOIN).
public enum InviteRules {
    /// How long a code lasts when ROOM INVITE names no end.
    public static let defaultLifetime: TimeInterval = 7 * 86400

    /// `expires=WHEN`: when the code stops working, which must be after `now` (a date alone
    /// lasts to the end of that day); a week from now without one.
    /// (The parser has checked the word and the count of uses.)
    public static func expiry(_ word: DateWord?, now: Date, calendar: Calendar = .current) throws(DomainError) -> Date {
        guard let word else { return now.addingTimeInterval(defaultLifetime) }
        let when = try When(resolving: word, now: now, calendar: calendar)
        guard let moment = when.dueInstant(calendar: calendar), moment > now else { throw .expiryInPast(word.text) }
        return moment
    }

    /// Past its end (an invite without one never expires).
    public static func isExpired(_ invite: InviteRecord, now: Date, calendar: Calendar = .current) -> Bool {
        guard let expires = invite.expires, let moment = When(stored: expires)?.dueInstant(calendar: calendar) else { return false }
        return moment <= now
    }

    /// ROOM JOIN: a code that exists, has not expired nor been used up, for a room the
    /// caller is not in yet and was not removed from (a removal holds against every code
    /// until an owner or admin adds them again). `typed` is the code as given, for the message.
    public static func requireJoinable(_ invite: InviteRecord?, typed: String, isMember: Bool, wasRemoved: Bool, now: Date,
                                       calendar: Calendar = .current) throws(DomainError) -> InviteRecord {
        guard let invite, !isExpired(invite, now: now, calendar: calendar), invite.usesLeft != 0 else {
            throw .noSuchInvite(typed)
        }
        guard !isMember else { throw .alreadyInRoom(invite.room) }
        guard !wasRemoved else { throw .removedFromRoom(invite.room) }
        return invite
    }
}

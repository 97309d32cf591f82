import Foundation

/// Who may make an account, and how many one address may make (CONTRACT §11, Sign-ups).
///
/// A server strangers can reach is otherwise a free supply of names for spam and for
/// flooding the store: `invite` lets in only people a room has invited, and either way an
/// address gets `limit` accounts per `window`. The store keeps the times (so every node and
/// a restart see the same count); this decides from them.
public enum SignUpRules {
    /// How long a sign-up counts against its address.
    public static let window: TimeInterval = 3600

    /// `--register-rate`'s default: accounts per address per window.
    public static let defaultLimit = 5

    /// Sign-ups at or after this moment still count.
    public static func windowStart(now: Date) -> Date {
        now.addingTimeInterval(-window)
    }

    /// Nil when one more sign-up fits; otherwise the whole seconds until it does.
    /// `recent` holds the address's sign-up times inside the window, in any order (more
    /// than `limit` of them when the limit was lowered since).
    public static func retryAfter(recent: [Date], limit: Int, now: Date) -> Int? {
        guard recent.count >= limit else { return nil }
        // The slot frees when enough of the oldest leave the window to bring the count
        // below the limit: the (count - limit + 1)-th oldest.
        let leaving = recent.sorted()[recent.count - limit]
        let seconds = leaving.addingTimeInterval(window).timeIntervalSince(now)
        return max(1, Int(seconds.rounded(.up)))
    }

    /// `invite` mode: a REGISTER needs a room's invite code, except the very first account
    /// of an empty store (someone has to make the first room). `storeIsEmpty` is asked only
    /// when it matters.
    public static func requireAllowed(mode: RegistrationMode, invited: Bool,
                                      storeIsEmpty: () throws -> Bool) throws -> Void {
        guard mode == .invite, !invited else { return }
        guard try storeIsEmpty() else { throw DomainError.signUpByInviteOnly }
    }

    /// The code a REGISTER gave: usable as ROOM JOIN would take it for someone in no room
    /// yet. An unknown, expired or used-up code is ROOM JOIN's 404 on an open server; on an
    /// invite-only one it is the same 403 as no code, since without it there is no account.
    public static func requireUsableInvite(_ invite: InviteRecord?, typed: String, mode: RegistrationMode, now: Date,
                                           calendar: Calendar = .current) throws(DomainError) -> InviteRecord {
        do {
            return try InviteRules.requireJoinable(invite, typed: typed, isMember: false, wasRemoved: false, now: now, calendar: calendar)
        } catch {
            if mode == .invite, case .noSuchInvite = error { throw .signUpInviteUnusable(typed) }
            throw error
        }
    }
}

/// `chorusd --registration`.
public enum RegistrationMode: String, Sendable, CaseIterable {
    /// Anyone may REGISTER (with the per-address limit).
    case open
    /// Only with a room's invite code (`REGISTER NAME PASSWORD invite=CODE`).
    case invite
}

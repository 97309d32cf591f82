import Foundation

/// The rules of calendar feeds (CONTRACT §9, "Calendar feeds"): what a secret looks like,
/// whether a link still serves, which finished tasks a feed shows, which task fields count
/// as a change (`SEQUENCE`), and what `Last-Modified` says.
public enum CalendarFeedRules {
    /// Random bytes in a secret: 192 bits, spelled as 48 lowercase hex digits.
    public static let secretBytes = 24
    public static var secretLength: Int { secretBytes * 2 }

    /// Only what `secretBytes` makes is a secret; anything else is no feed (404).
    public static func isWellFormed(_ secret: Substring) -> Bool {
        secret.utf8.count == secretLength && secret.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// A link serves only while its owner's account is enabled and, for a room's feed,
    /// they are still a member (`member` nil for the `me` feed). Leaving, removal,
    /// disabling and PASSWORD also delete the link; this holds even if one was missed.
    public static func serves(ownerDisabled: Bool, member: Bool?) -> Bool {
        !ownerDisabled && member != false
    }

    /// Finished tasks stay in a feed (marked done) for 30 days after they were finished,
    /// as in CALENDAR's file.
    public static func finishedSince(now: Date) -> Date {
        now.addingTimeInterval(-30 * 86400)
    }

    /// The task columns a feed shows: changing any of them bumps the task's revision, its
    /// `SEQUENCE`. Each engine's trigger lists exactly these (`CalendarFeedStoreTests`
    /// holds both to it); bookkeeping (notice moments and marks, points, repeat) does not.
    /// A subtask's change bumps its parent too, since the parent shows the roll-up.
    public static let shownFields = ["title", "notes", "due", "start", "done", "progress", "assignee", "estimate", "room"]

    /// How long calendar apps should wait between fetches (`REFRESH-INTERVAL`, `X-PUBLISHED-TTL`).
    public static let refreshInterval = "PT1H"

    /// A timed task's event lasts this long (`DTEND` = due + 30 minutes).
    public static let timedEventMinutes = 30

    /// `Last-Modified` of a link's feed: the moment a request first saw this body. The
    /// newest task change is not enough, since deleting a task, or one leaving the scope,
    /// changes the body without any remaining task changing. So each link keeps the digest
    /// of the body it last served and when that digest first appeared; a new digest moves
    /// the time to `now`. Returns the time to answer with, and whether to store it.
    public static func lastModified(stored: (digest: String, at: Date)?, digest: String, now: Date) -> (at: Date, store: Bool) {
        if let stored, stored.digest == digest { return (stored.at, false) }
        // HTTP dates have whole seconds: keep the stored time whole, so 304s compare equal.
        return (Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), true)
    }
}

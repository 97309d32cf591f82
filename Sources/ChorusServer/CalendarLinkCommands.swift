import ChorusCore
import ChorusCrypto
import Foundation

/// CALENDAR LINK and UNLINK: the secret addresses calendar apps subscribe to (CONTRACT §9).
/// The secret is shown once, in the reply; the store keeps only its SHA-256 digest.
extension CommandContext {
    /// CALENDAR LINK R|me: a new address for the scope, ending the one it had.
    func calendarLink(_ scope: CalendarScope) throws -> CommandResult {
        let (room, title) = try feedScope(scope)
        let secret = SecureRandom.hex(CalendarFeedRules.secretBytes)
        let replaced = try db.replaceCalendarLink(user: caller.id, room: room, digest: Digest.sha256Hex(secret), created: timestamp)
        let origin = publicOrigin?.origin ?? ""
        let path = "/calendar/\(secret).ics"
        let url = origin + path
        let webcal = "webcal://" + origin.dropFirst("https://".count) + path
        let ended = replaced ? "; the address it had before no longer works" : ""
        return result(.ok("calendar address for \(title)\(ended): subscribe to it in your calendar app",
                          body: ["  url     \(url)", "  webcal  \(webcal)"],
                          [("url", .string(url)), ("webcal", .string(webcal)), ("replaced", .bool(replaced))]))
    }

    /// CALENDAR UNLINK R|me: the scope's address stops working.
    func calendarUnlink(_ scope: CalendarScope) throws -> CommandResult {
        let (room, title) = try feedScope(scope)
        let ended = try db.deleteCalendarLink(user: caller.id, room: room)
        let summary = ended ? "ended the calendar address for \(title)" : "there was no calendar address for \(title)"
        return result(.ok(summary, [("ended", .bool(ended))]))
    }

    /// The room of a feed (nil for `me`) and how replies name it; outsiders get the 404
    /// every room command gives.
    private func feedScope(_ scope: CalendarScope) throws -> (room: Int64?, title: String) {
        switch scope {
        case .mine: return (nil, "your own tasks")
        case .room(let reference):
            let access = try room(reference)
            return (access.id, access.name)
        }
    }
}

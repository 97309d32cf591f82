import ChorusCore
import ChorusCrypto
import ChorusNet
import ChorusRendering
import ChorusStore
import Foundation

/// What GET /calendar/SECRET.ics answers.
enum CalendarFeedAnswer: Sendable {
    case notFound                      // unknown or ended secret (also a malformed one)
    case unavailable                   // the store could not be reached (→ 503)
    case feed(body: [UInt8], etag: String, lastModified: Date)   // etag with its quotes
}

extension Hub {
    /// Looks up the feed by the secret's digest off the loop (a store read through `database`, the StoreExecutor) and calls `completion` on this hub's loop.
    /// The store is read on every request, so a link ended on any node is 404 at once on
    /// all of them. The secret is never logged: a failure names its digest's first 8 digits.
    func calendarFeed(secret: Substring, completion: @escaping (CalendarFeedAnswer) -> Void) {
        let done = LoopBound(completion, loop: loop)
        let loop = self.loop
        guard CalendarFeedRules.isWellFormed(secret) else {
            return loop.execute { done.value(.notFound) }
        }
        let digest = Digest.sha256Hex(String(secret))
        let clock = self.clock
        database.submit({ db in try CalendarFeeds.answer(db, digest: digest, now: clock.now()) }) { result in
            let answer: CalendarFeedAnswer
            switch result {
            case .success(let found):
                StoreFailureLog.succeeded()
                answer = found
            case .failure(let error):
                Log.warn("calendar feed unavailable", ["feed": String(digest.prefix(8)), "error": error])
                answer = .unavailable
            }
            loop.execute { done.value(answer) }
        }
    }
}

/// One feed request as a store job: the link's facts, the domain's verdict, the tasks, the
/// rendered body, its ETag and an honest Last-Modified (`CalendarFeedRules.lastModified`).
enum CalendarFeeds {
    static func answer(_ db: any Store, digest: String, now: Date, calendar: Calendar = .current) throws -> CalendarFeedAnswer {
        guard let link = try db.calendarLink(digest: digest),
              CalendarFeedRules.serves(ownerDisabled: link.ownerDisabled, member: link.ownerIsMember)
        else { return .notFound }
        let since = Timestamp.rfc3339(CalendarFeedRules.finishedSince(now: now))
        let scope: TaskScope = link.room.map { .room($0) } ?? .mine(user: link.owner)
        let items = try db.feedTasks(in: scope, finishedSince: since).map { found in
            let changed = found.changedAt.map { Date(timeIntervalSince1970: Double($0)) }
                ?? When.utcInstant(found.task.created) ?? Date(timeIntervalSince1970: 0)
            return CalendarFeed.Item(task: found.task, revision: found.revision, changed: changed)
        }
        let body = CalendarFeed(name: "Chorus: " + (link.roomName ?? link.ownerName), calendar: calendar).render(items)
        let bodyDigest = Digest.sha256Hex(body)
        let modified = CalendarFeedRules.lastModified(stored: link.lastBody, digest: bodyDigest, now: now)
        if modified.store {
            try db.recordCalendarBody(link: digest, bodyDigest: bodyDigest, at: Int64(modified.at.timeIntervalSince1970))
        }
        return .feed(body: body, etag: etag(bodyDigest), lastModified: modified.at)
    }

    /// A strong validator: the body's SHA-256, quoted. It changes exactly when the body does.
    static func etag(_ bodyDigest: String) -> String {
        "\"" + bodyDigest + "\""
    }

    /// The ETag of a body, as `answer` gives it.
    static func etag(of body: [UInt8]) -> String {
        etag(Digest.sha256Hex(body))
    }
}

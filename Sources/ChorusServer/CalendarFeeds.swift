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
    case busy                          // 64 feeds already wait for the render pool (→ 503)
    case feed(body: [UInt8], etag: String, lastModified: Date)   // etag with its quotes
}

extension Hub {
    /// Answers a feed request in three steps, none on this loop: the store reads the link
    /// and its tasks (`CalendarFeeds.facts`), `renderPool` renders and digests them, and
    /// only when the body changed does the store record its new digest and time (for an
    /// honest `Last-Modified`). `completion` runs on this hub's loop.
    /// The store is read on every request, so a link ended on any node is 404 at once on
    /// all of them. The secret is never logged: a failure names its digest's first 8 digits.
    func calendarFeed(secret: Substring, completion: @escaping (CalendarFeedAnswer) -> Void) {
        let done = LoopBound(completion, loop: loop)
        let loop = self.loop
        let answer: @Sendable (CalendarFeedAnswer) -> Void = { found in loop.execute { done.value(found) } }
        guard CalendarFeedRules.isWellFormed(secret) else { return answer(.notFound) }
        let digest = Digest.sha256Hex(String(secret))
        let (clock, database, renderPool) = (self.clock, self.database, self.renderPool)
        let unavailable: @Sendable (any Error) -> Void = { error in
            Log.warn("calendar feed unavailable", ["feed": String(digest.prefix(8)), "error": error])
            answer(.unavailable)
        }
        let now = clock.now()
        database.submit({ db in try CalendarFeeds.facts(db, digest: digest, now: now) }) { result in
            switch result {
            case .failure(let error):
                unavailable(error)
            case .success(nil):
                StoreFailureLog.succeeded()
                answer(.notFound)
            case .success(let facts?):
                StoreFailureLog.succeeded()
                let queued = renderPool.submit {
                    let rendered = CalendarFeeds.render(facts, now: now)
                    guard rendered.recordModified else { return answer(rendered.answer) }
                    database.submit({ db in
                        try db.recordCalendarBody(link: digest, bodyDigest: rendered.bodyDigest,
                                                  at: Int64(rendered.lastModified.timeIntervalSince1970),
                                                  replacing: facts.lastBody?.digest)
                    }) { recorded in
                        switch recorded {
                        case .failure(let error): unavailable(error)
                        case .success(let held): answer(rendered.answer(after: held, now: now))
                        }
                    }
                }
                if !queued { answer(.busy) }
            }
        }
    }
}

/// One feed request's parts: the facts a store job reads (the link's verdict, its tasks,
/// the digest last served) and the rendering from them (body, ETag, an honest
/// Last-Modified by `CalendarFeedRules.lastModified`).
enum CalendarFeeds {
    /// What the store says about a feed that serves.
    struct Facts: Sendable {
        let name: String
        let items: [CalendarFeed.Item]
        let lastBody: (digest: String, at: Date)?
    }

    struct Rendered {
        let body: [UInt8]
        let bodyDigest: String
        let lastModified: Date
        /// The body differs from the one last served: the store must keep its digest and time.
        let recordModified: Bool

        var answer: CalendarFeedAnswer {
            .feed(body: body, etag: CalendarFeeds.etag(bodyDigest), lastModified: lastModified)
        }

        /// The answer once the store has recorded (or, racing another request, kept) a
        /// body: the time the link holds for this body, if it holds this body.
        func answer(after held: (digest: String, at: Date)?, now: Date) -> CalendarFeedAnswer {
            let modified = CalendarFeedRules.lastModified(stored: held, digest: bodyDigest, now: now)
            return .feed(body: body, etag: CalendarFeeds.etag(bodyDigest), lastModified: modified.at)
        }
    }

    /// nil for an unknown link or one that no longer serves. Runs on the store's thread.
    static func facts(_ db: any Store, digest: String, now: Date) throws -> Facts? {
        guard let link = try db.calendarLink(digest: digest),
              CalendarFeedRules.serves(ownerDisabled: link.ownerDisabled, member: link.ownerIsMember)
        else { return nil }
        let since = Timestamp.rfc3339(CalendarFeedRules.finishedSince(now: now))
        let scope: TaskScope = link.room.map { .room($0) } ?? .mine(user: link.owner)
        let items = try db.feedTasks(in: scope, finishedSince: since).map { found in
            let changed = found.changedAt.map { Date(timeIntervalSince1970: Double($0)) }
                ?? When.utcInstant(found.task.created) ?? Date(timeIntervalSince1970: 0)
            return CalendarFeed.Item(task: found.task, revision: found.revision, changed: changed)
        }
        return Facts(name: "Chorus: " + (link.roomName ?? link.ownerName), items: items, lastBody: link.lastBody)
    }

    static func render(_ facts: Facts, now: Date, calendar: Calendar = .current) -> Rendered {
        let body = CalendarFeed(name: facts.name, calendar: calendar).render(facts.items)
        let bodyDigest = Digest.sha256Hex(body)
        let modified = CalendarFeedRules.lastModified(stored: facts.lastBody, digest: bodyDigest, now: now)
        return Rendered(body: body, bodyDigest: bodyDigest, lastModified: modified.at, recordModified: modified.store)
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

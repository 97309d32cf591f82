import ChorusWeb
import Foundation

/// `GET /calendar/SECRET.ics` (CONTRACT §9): the secret out of the path, and the HTTP
/// answer to what the store found (`Hub.calendarFeed`).
enum CalendarFeedPath {
    /// The secret, when `path` is a feed's path whose secret could be one (URL-safe
    /// characters only, of a sane length); nil otherwise, and the request is a 404.
    static func secret(in path: String) -> Substring? {
        let prefix = "/calendar/", suffix = ".ics"
        guard path.hasPrefix(prefix), path.hasSuffix(suffix) else { return nil }
        let secret = path.dropFirst(prefix.count).dropLast(suffix.count)
        guard (16...128).contains(secret.utf8.count),
              secret.utf8.allSatisfy({ $0.isURLSafe }) else { return nil }
        return secret
    }

    /// 200 with the feed, 304 when the client's `If-None-Match` names its current ETag
    /// (only then: the tag is the body's digest), 404 for an unknown or ended address,
    /// 503 while the store is unreachable or the render queue is full.
    static func response(to answer: CalendarFeedAnswer, ifNoneMatch tags: [String]) -> HTTPResponse {
        switch answer {
        case .notFound:
            return .text(404, "not found")
        case .unavailable:
            return .text(503, "store unreachable; try again later", headers: [.init("Retry-After", "30")])
        case .busy:
            return .text(503, "too many feeds at once; try again shortly", headers: [.init("Retry-After", "5")])
        case .feed(let body, let etag, let lastModified):
            let validators: [HTTPResponse.Header] = [
                .init("ETag", etag), .init("Last-Modified", HTTPResponse.httpDate(lastModified)),
                // Calendars ask again on their own schedule; anything cached is checked first.
                .init("Cache-Control", "private, no-cache"),
            ]
            if matches(tags, etag) { return HTTPResponse(status: 304, headers: validators) }
            return HTTPResponse(status: 200, contentType: "text/calendar; charset=utf-8", body: body,
                                headers: validators + [.init("Content-Disposition", "inline; filename=\"chorus.ics\"")])
        }
    }

    /// RFC 9110 §13.1.2: `*`, or the tag among the list by weak comparison.
    static func matches(_ tags: [String], _ etag: String) -> Bool {
        func opaque(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag) }
        return tags.contains { $0 == "*" || opaque($0) == opaque(etag) }
    }
}

extension UInt8 {
    /// A-Z a-z 0-9 - _ : what base64url and hex secrets are made of.
    var isURLSafe: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5a).contains(self) || (0x61...0x7a).contains(self) || self == 0x2d || self == 0x5f
    }
}

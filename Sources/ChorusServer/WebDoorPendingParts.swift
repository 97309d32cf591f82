// TEMPORARY, while the web door's other parts are built in parallel branches: each of
// these is replaced by the real one when its branch merges (calendar feeds; metrics and
// health are in Hub+Monitoring.swift). Delete this file when merging them.
import Foundation

enum CalendarFeedAnswer: Sendable {
    case notFound
    case unavailable
    case feed(body: [UInt8], etag: String, lastModified: Date)
}

extension Hub {
    func calendarFeed(secret: Substring, completion: @escaping (CalendarFeedAnswer) -> Void) {
        completion(.notFound)
    }

}

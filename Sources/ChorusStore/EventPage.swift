/// The first `limit` events, by id, of several id-ordered sources (an event may come from
/// more than one: it is kept once). SYNC merges its sources with it, on every engine.
public struct EventPage: Sendable {
    public let limit: Int
    public private(set) var events: [StoredEvent] = []

    public init(limit: Int) { self.limit = limit }

    /// The id past which no event can make the page any more: the last one once it is full.
    public var cutoff: Int64 { events.count >= limit ? events[events.count - 1].id : Int64.max }

    public mutating func add(_ source: [StoredEvent]) {
        guard !source.isEmpty else { return }
        var merged = events + source
        merged.sort { $0.id < $1.id }
        var kept: [StoredEvent] = []
        kept.reserveCapacity(min(merged.count, limit))
        for event in merged where kept.last?.id != event.id {
            kept.append(event)
            if kept.count == limit { break }
        }
        events = kept
    }
}

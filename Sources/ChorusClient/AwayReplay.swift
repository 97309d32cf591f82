/// What a new session missed since the place `SeenEventsFile` kept: SYNC pages are taken
/// in and only the newest `limit` kept, so a long absence neither floods the screen nor
/// grows the client; the rest is counted and left to `SYNC ID`.
public struct AwayReplay {
    /// The id the previous session had shown up to.
    public let since: Int64
    public let limit: Int
    public private(set) var kept: [SyncPage.Entry] = []
    public private(set) var leftOut = 0

    public init(since: Int64, limit: Int) {
        self.since = since
        self.limit = limit
    }

    public mutating func take(_ entries: [SyncPage.Entry]) {
        kept += entries
        if kept.count > limit {
            leftOut += kept.count - limit
            kept.removeFirst(kept.count - limit)
        }
    }

    /// The lines to print before the events (none when nothing was missed).
    public var heading: [String] {
        guard !kept.isEmpty else { return [] }
        var lines = ["while you were away (since #\(since)):"]
        if leftOut > 0 {
            lines.append("\(leftOut) older event\(leftOut == 1 ? "" : "s") left out; SYNC \(since) shows them")
        }
        return lines
    }
}

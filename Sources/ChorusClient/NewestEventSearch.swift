/// Finds the newest event id a user can see when a session starts, so the `EventCursor`
/// starts at "now" without paging through the whole history.
///
/// The protocol has no "newest id" request, but `SYNC X 1` answers "the first event after
/// X, if any", which is enough for a search: growing probes X = 0, 15, 255, ... 2^52 - 1
/// (sent at once: 14 requests, well inside the server's per-session burst), then halving
/// between the newest id found and the first X after which nothing came. About
/// 14 + log2(newest id) + 4 small requests. The result never exceeds a real event id, and
/// the quiet SYNC that follows catches up on anything that happened meanwhile.
public struct NewestEventSearch {
    /// Probes 16 times apart up to 2^52 - 1, past any id SQLite will hand out in practice.
    public static let growingProbes: [Int64] = (0...13).map { (Int64(1) << (4 * $0)) - 1 }

    /// The newest id seen so far (0: none).
    private var found: Int64 = 0
    /// No event after this id.
    private var ceiling: Int64?
    private var growingAnswers = 0
    /// The probe in flight during the halving phase.
    private var halvingProbe: Int64?

    public init() {}

    /// Set once the search is over.
    public private(set) var result: Int64?

    /// Where to replay from when the connection drops before the search is over: an event
    /// id that exists and is no newer than any event shown since the session began, so a
    /// `SYNC` after it misses nothing (it may show again some events from before the
    /// session). Nil while nothing is known yet.
    public var replayFloor: Int64? {
        result ?? (found > 0 ? found : nil)
    }

    /// Records the answer to `SYNC after 1`; returns the next probes to send (maybe none).
    public mutating func record(after: Int64, first: Int64?) -> [Int64] {
        if let first {
            found = max(found, first)
        } else {
            ceiling = min(ceiling ?? after, after)
        }
        if halvingProbe == nil {
            growingAnswers += 1
            guard growingAnswers == Self.growingProbes.count else { return [] }
        }
        halvingProbe = nil
        let top = max(ceiling ?? found, found)
        guard found < top else {
            result = found
            return []
        }
        let probe = found + (top - found) / 2
        halvingProbe = probe
        return [probe]
    }
}

import ChorusNet

/// The tail's order rule, as a value: this node's committed jobs (in commit order) and
/// other nodes' rows (read from the log in id order) merged into one id order, with no
/// gap and nothing twice. Pure, so its tests need no threads.
///
/// - An own item whose first id is `deliveredUpTo + 1` goes next, with no read of the
///   log: a single node never waits for the database to deliver its own events.
/// - An own item with no ids (a reply without events, a failure) goes right after the own
///   item before it: own items never pass each other, so replies keep commit order. One
///   that shows the log (SYNC, HISTORY: `after`) also waits for the ids up to what it shows.
/// - Ids before an own item that are not in it are other nodes' (completions come in
///   commit order, so this node's earlier ids were all handed in already): once the rows
///   up to there are read (`needsRead`), they go first, in id order.
struct TailOrder<Own, Foreign> {
    enum Step {
        /// `stale`: its ids were delivered already, read back from the log after its
        /// commit's outcome was unknown here: only its reply is left to send.
        case own(Own, stale: Bool)
        case foreign(Foreign)
    }

    /// Every id up to this one has been handed to the loops.
    private(set) var deliveredUpTo: Int64
    /// Other nodes' rows up to this id have been read (they are delivered or below).
    private(set) var readUpTo: Int64
    private var own = FIFOQueue<(ids: ClosedRange<Int64>?, after: Int64, item: Own)>()
    private var foreign = FIFOQueue<(ids: ClosedRange<Int64>, item: Foreign)>()

    init(startingAfter id: Int64) {
        deliveredUpTo = id
        readUpTo = id
    }

    /// This node's next committed job, in commit order. One without ids that shows the
    /// log up to `after` (SYNC, HISTORY) also waits until every id up to there went.
    mutating func addOwn(_ item: Own, ids: ClosedRange<Int64>?, after: Int64 = 0) {
        own.append((ids, after, item))
    }

    /// Other nodes' rows read up to `upTo` (every one in `(readUpTo, upTo]`), grouped into
    /// runs of consecutive ids, in id order.
    mutating func addForeign(_ runs: [(ids: ClosedRange<Int64>, item: Foreign)], readUpTo upTo: Int64) {
        for run in runs where run.ids.lowerBound > max(deliveredUpTo, readUpTo) { foreign.append(run) }
        readUpTo = max(readUpTo, upTo)
    }

    /// Rows read back from the log, this node's included, for ids no completion brought
    /// (`ownGap`): they fill the gap at `deliveredUpTo + 1`, before what is buffered.
    mutating func addRecovered(_ runs: [(ids: ClosedRange<Int64>, item: Foreign)]) {
        let limit = foreign.first?.ids.lowerBound ?? Int64.max
        var merged = FIFOQueue<(ids: ClosedRange<Int64>, item: Foreign)>()
        for run in runs where run.ids.lowerBound > deliveredUpTo && run.ids.upperBound < limit { merged.append(run) }
        while let run = foreign.popFirst() { merged.append(run) }
        foreign = merged
    }

    /// The next item to hand out, nil while the next id has not come in yet.
    mutating func next() -> Step? {
        let next = deliveredUpTo + 1
        if let head = own.first {
            if head.ids == nil && head.after <= deliveredUpTo {
                _ = own.popFirst()
                return .own(head.item, stale: false)
            }
            if let ids = head.ids, ids.lowerBound <= deliveredUpTo {
                _ = own.popFirst()
                return .own(head.item, stale: true)
            }
            if let ids = head.ids, ids.lowerBound == next {
                _ = own.popFirst()
                deliveredUpTo = ids.upperBound
                return .own(head.item, stale: false)
            }
        }
        while let run = foreign.first, run.ids.lowerBound <= deliveredUpTo { _ = foreign.popFirst() }
        if let run = foreign.first, run.ids.lowerBound == next {
            _ = foreign.popFirst()
            deliveredUpTo = run.ids.upperBound
            return .foreign(run.item)
        }
        return nil
    }

    /// An own item waits for other nodes' rows not read yet.
    var needsRead: Bool {
        guard let head = own.first else { return false }
        let before = head.ids.map { $0.lowerBound - 1 } ?? head.after
        return before > readUpTo && before > deliveredUpTo
    }

    /// The ids next in line that no read of other nodes' rows can bring: this node's,
    /// committed, whose job's completion has not come (yet, or ever: a COMMIT whose
    /// answer was lost). Up to the next item held.
    var ownGap: ClosedRange<Int64>? {
        let next = deliveredUpTo + 1
        guard next <= readUpTo else { return nil }
        var end = readUpTo
        if let ids = own.first?.ids { end = min(end, ids.lowerBound - 1) }
        if let run = foreign.first { end = min(end, run.ids.lowerBound - 1) }
        return next <= end ? next...end : nil
    }

    /// Own items waiting.
    var ownCount: Int { own.count }
    /// Foreign runs read and waiting.
    var foreignCount: Int { foreign.count }
}

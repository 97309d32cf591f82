/// Counters a `DeliveryQueue` keeps: the three every queue has, and its own per outcome.
protocol DeliveryCounting: Sendable {
    associatedtype Outcome: Sendable
    init()
    /// Attempts that failed and were scheduled again.
    var retried: Int { get set }
    /// Submissions refused because the queue was full.
    var droppedFull: Int { get set }
    /// Jobs ended by shutdown.
    var abandoned: Int { get set }
    /// Counts a job that ended with `outcome`.
    mutating func count(_ outcome: Outcome)
}

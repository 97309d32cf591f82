/// The ordering model: who numbers events, and the order everyone sees them in.
///
/// - The store assigns event ids as it commits, increasing in commit order. Today that is
///   SQLite's one writer thread, which runs each group-commit batch's jobs in order; on
///   several nodes it is PostgreSQL's counter row, taken last in each batch and held to
///   its COMMIT (`EventCounter`); until then a batch's events carry provisional ids, made
///   final before any completion sees them (`FinalEventIDs`). Nothing in the server numbers events.
/// - The event bus hands each loop every committed job in id order (on several nodes
///   through one id-ordered tail of the shared log, `TailOrder`, other nodes' events
///   included), each loop runs its inbox in order and `PendingFanOut` writes in arrival order. So a session sees a
///   room's events in id order, the same order SYNC and HISTORY give, and two members of
///   a room see its events in the same order whatever loop or node they are on.
/// - A command's reply is released only after its events were written on every loop of
///   its node (`ReplyGate`), so whoever got `OK` may count on the others having been sent
///   them; on other nodes they follow within the tail latency.
///
/// This value checks the second rule on one loop: the events it delivers carry strictly
/// increasing ids. Debug builds (the tests) stop on a break of it.
struct EventOrder {
    /// The id of the last event this loop delivered (0: none yet).
    private(set) var lastID: Int64 = 0

    /// Records `id` as the next event delivered here; false when it comes out of order.
    mutating func deliver(_ id: Int64) -> Bool {
        guard id > lastID else { return false }
        lastID = id
        return true
    }
}

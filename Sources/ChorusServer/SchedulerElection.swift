import ChorusNet
/// Which loop runs the notice scheduler's timer: the one allowed to fire reminders,
/// overdue and behind notices. Asked at start and whenever a command moves the next
/// notice time.
///
/// Today one process fires, from its first loop (`FirstLoopSchedules`). On several nodes
/// every node's first loop may fire, because the store hands each due task to one of
/// them only (`FOR UPDATE SKIP LOCKED`, `CLUSTER.md`); an implementation holding a lease
/// instead would answer nil on the nodes without it.
protocol SchedulerElection: Sendable {
    /// The loop whose timer fires notices, or nil when none of these may.
    func scheduler(among hubs: [LoopBound<Hub>]) -> LoopBound<Hub>?
}

/// The one process fires, on its first loop (the one that also listens).
struct FirstLoopSchedules: SchedulerElection {
    func scheduler(among hubs: [LoopBound<Hub>]) -> LoopBound<Hub>? { hubs.first }
}

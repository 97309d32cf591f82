import ChorusNet
/// Which loop runs the notice scheduler's timer: the one allowed to fire reminders,
/// overdue and behind notices, and how long that timer may sleep. Asked at start and
/// whenever a command moves the next notice time.
///
/// One process fires from its first loop (`FirstLoopSchedules`) and sleeps until the
/// next notice it knows of. On several nodes every node's first loop fires
/// (`EveryNodeSchedules`): the store hands each due task to one of them only (`FOR UPDATE
/// SKIP LOCKED`, `CLUSTER.md`), and each looks every second, since another node may have
/// moved a due time (and died) without this one hearing of it.
protocol SchedulerElection: Sendable {
    /// The loop whose timer fires notices, or nil when none of these may.
    func scheduler(among hubs: [LoopBound<Hub>]) -> LoopBound<Hub>?
    /// Seconds between checks even when no notice is known to be owed sooner; nil to
    /// sleep until the next known one.
    var checkEvery: Double? { get }
}

/// The one process fires, on its first loop (the one that also listens).
struct FirstLoopSchedules: SchedulerElection {
    func scheduler(among hubs: [LoopBound<Hub>]) -> LoopBound<Hub>? { hubs.first }
    var checkEvery: Double? { nil }
}

/// Every node fires, on its first loop, looking at least every second.
struct EveryNodeSchedules: SchedulerElection {
    func scheduler(among hubs: [LoopBound<Hub>]) -> LoopBound<Hub>? { hubs.first }
    var checkEvery: Double? { 1 }
}

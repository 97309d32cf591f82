import ChorusNet
import Synchronization

/// Whether the store answered lately, for `/healthz`: the newest word from the store's
/// thread (a batch committed, or failed as unavailable; a job failed as unavailable)
/// or the presence heartbeat (worked or failed), with when it came. The loops read it
/// and start a probe when it is stale or bad (`Hub.isHealthy`). Atomics only: the
/// store's thread writes it once per batch.
final class StoreHealth: Sendable {
    /// A success this recent answers `/healthz` without asking the store.
    static let fresh: Double = 2

    /// 0: no word yet; 1: reachable; 2: unreachable.
    private let lastWord = Atomic<Int>(0)
    /// When `lastWord` came (MonotonicTime nanoseconds).
    private let lastWordAt = Atomic<UInt64>(0)
    /// When the probe in flight was submitted; 0 when none is.
    private let probeSince = Atomic<UInt64>(0)

    /// The store (or the heartbeat on its database) answered, or failed as unreachable.
    func heard(reachable: Bool, now: UInt64 = MonotonicTime.nanoseconds()) {
        lastWord.store(reachable ? 1 : 2, ordering: .relaxed)
        lastWordAt.store(now, ordering: .releasing)
    }

    /// True when the store last answered and did so within `fresh` seconds.
    func answeredRecently(now: UInt64 = MonotonicTime.nanoseconds()) -> Bool {
        let at = lastWordAt.load(ordering: .acquiring)
        return lastWord.load(ordering: .relaxed) == 1 && now &- at < UInt64(Self.fresh * 1e9)
    }

    /// What the store said at or after `since`: true reachable, false not, nil nothing yet.
    func word(since: UInt64) -> Bool? {
        let at = lastWordAt.load(ordering: .acquiring)
        guard at >= since else { return nil }
        switch lastWord.load(ordering: .relaxed) {
        case 1: return true
        case 2: return false
        default: return nil
        }
    }

    /// Whether the store was reachable at its last word (false before any word), for
    /// the `chorus_store_up` gauge.
    var lastReachable: Bool { lastWord.load(ordering: .relaxed) == 1 }

    /// Claims the one probe that may be in flight; false when another one is (so a store
    /// that hangs holds one probe job, however often `/healthz` is asked).
    func claimProbe(now: UInt64 = MonotonicTime.nanoseconds()) -> Bool {
        probeSince.compareExchange(expected: 0, desired: max(1, now), ordering: .acquiringAndReleasing).exchanged
    }

    func probeEnded() {
        probeSince.store(0, ordering: .releasing)
    }
}

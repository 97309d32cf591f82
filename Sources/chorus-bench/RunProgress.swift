import Dispatch
import Synchronization

/// Shared between the generator's loops and the main thread during a measured phase that
/// ends when the work is done rather than after a fixed time: loops count progress and
/// say when their shard is complete; the main thread waits, and gives up when progress
/// stops (lost messages never arrive).
final class RunProgress: Sendable {
    enum Outcome: Sendable, Equatable {
        case finished
        case failed
        case stalled
    }

    private let shardCount: Int
    private let counted = Atomic<Int>(0)
    private let shardsDone = Atomic<Int>(0)
    private let failedFlag = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)

    init(shards: Int) {
        shardCount = shards
    }

    /// Loop side: some work was done (used only to notice a stall).
    func count(_ amount: Int = 1) {
        counted.add(amount, ordering: .relaxed)
    }

    /// Loop side: this shard has everything it was waiting for.
    func shardFinished() {
        if shardsDone.add(1, ordering: .acquiringAndReleasing).newValue == shardCount { wake.signal() }
    }

    /// Loop side: something broke (a session closed, a request failed); stop waiting.
    func fail() {
        failedFlag.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Main thread: waits for every shard, a failure, or `stallSeconds` without progress.
    func wait(stallSeconds: Double) -> Outcome {
        var lastCount = -1
        var lastChange = DispatchTime.now()
        while true {
            if wake.wait(timeout: .now() + 0.1) == .success {
                if failedFlag.load(ordering: .acquiring) { return .failed }
                if shardsDone.load(ordering: .acquiring) == shardCount { return .finished }
            }
            if failedFlag.load(ordering: .acquiring) { return .failed }
            let now = counted.load(ordering: .relaxed)
            if now != lastCount {
                lastCount = now
                lastChange = .now()
            } else if DispatchTime.now().uptimeNanoseconds - lastChange.uptimeNanoseconds > UInt64(stallSeconds * 1e9) {
                return .stalled
            }
        }
    }
}

import ChorusNet
import Dispatch
import Foundation
import Synchronization

/// The load generator: one or a few event-loop threads, each with its own shard of the
/// workload's sessions (`Shard`, created per loop and touched only on that loop).
///
/// The main thread drives a run as a sequence of phases: `run` hands a closure to every
/// shard's loop and blocks until each has called its `finish`, so set-up steps that
/// depend on each other (create a room, then join it) read as straight-line code.
final class Generator<Shard: AnyObject>: Sendable {
    let threadCount: Int
    private let loops: [EventLoop]
    private let shards: [LoopBound<Shard>]
    private let stopped: [DispatchSemaphore]

    /// `makeShard(index, nodes)` builds each loop's shard on the calling thread, with a
    /// connector on that loop for each of `addresses` (the nodes), speaking `transport`.
    init(threads: Int, addresses: [ResolvedAddress], tls: TLSClientContext, transport: BenchTransport = .line,
         makeShard: (Int, NodeConnectors) -> Shard) throws {
        threadCount = max(1, threads)
        var loops: [EventLoop] = []
        var shards: [LoopBound<Shard>] = []
        var stopped: [DispatchSemaphore] = []
        for index in 0..<threadCount {
            let loop = try EventLoop()
            loops.append(loop)
            shards.append(LoopBound(makeShard(index, NodeConnectors(loop: loop, addresses: addresses, tls: tls, transport: transport)), loop: loop))
            let done = DispatchSemaphore(value: 0)
            stopped.append(done)
            let thread = Thread {
                loop.run()
                done.signal()
            }
            thread.name = "bench-loop-\(index)"
            thread.stackSize = 1 << 20
            thread.start()
        }
        self.loops = loops
        self.shards = shards
        self.stopped = stopped
    }

    /// Runs `body` on each shard's loop (or only on `only`) and waits until all of them
    /// have called `finish`; returns their values in shard order. A failure, or a phase
    /// that takes longer than `timeout` seconds, throws.
    func run<Value: Sendable>(
        _ phase: String, timeout: Double, only: Int? = nil,
        _ body: @escaping @Sendable (Shard, _ finish: @escaping @Sendable (Result<Value, BenchFailure>) -> Void) -> Void
    ) throws -> [Value] {
        let indices = only.map { [$0] } ?? Array(0..<threadCount)
        let results = Mutex<[Int: Result<Value, BenchFailure>]>([:])
        let done = DispatchSemaphore(value: 0)
        for index in indices {
            let shard = shards[index]
            loops[index].execute {
                body(shard.value) { result in
                    let first = results.withLock { results in
                        guard results[index] == nil else { return false }
                        results[index] = result
                        return true
                    }
                    if first { done.signal() }
                }
            }
        }
        let deadline = DispatchTime.now() + timeout
        for _ in indices {
            if done.wait(timeout: deadline) == .timedOut {
                throw BenchFailure("\(phase): not finished after \(Int(timeout)) s (raise --timeout, or the server is stuck)")
            }
        }
        let collected = results.withLock { $0 }
        return try indices.map { index in
            switch collected[index]! {
            case .success(let value): return value
            case .failure(let failure): throw BenchFailure("\(phase): \(failure.message)")
            }
        }
    }

    /// Like `run`, for a phase that returns nothing.
    func run(_ phase: String, timeout: Double, only: Int? = nil,
             _ body: @escaping @Sendable (Shard, _ finish: @escaping @Sendable (BenchFailure?) -> Void) -> Void) throws {
        let _: [Bool] = try run(phase, timeout: timeout, only: only) { shard, finish in
            body(shard) { failure in finish(failure.map { .failure($0) } ?? .success(true)) }
        }
    }

    /// Stops the loops and waits for their threads. Sessions still open stay open until
    /// the process exits.
    func stop() {
        for loop in loops { loop.stop() }
        for done in stopped { done.wait() }
    }
}

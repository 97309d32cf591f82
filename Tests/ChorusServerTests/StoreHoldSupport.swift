import ChorusServer
import ChorusStore
import Foundation

/// The server's store with two brakes a test can pull, so that things which usually land
/// in different loop turns land in the same one:
///
/// - `holdDatabase`: the database thread runs a job that waits, so the commands submitted
///   meanwhile commit in one batch, and their results reach the loop's inbox together.
/// - `stallLoopAtNextCommand`: the next household command hands its job to the database
///   at once and then keeps its loop thread (the one that submits it) waiting, so its
///   result, other threads' work and due timers all pile up for that loop's next turn.
///
/// It also counts jobs submitted and completions called, so a test knows when the server
/// has got that far.
final class HeldStore: StoreExecutor, @unchecked Sendable {
    private let inner: any StoreExecutor
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var submitted = 0
    private var completed = 0
    private var databaseHeld = false
    private var databaseWaiting = false
    private var stallArmed = false
    private var loopStalled = false

    init(_ inner: any StoreExecutor) {
        self.inner = inner
    }

    /// A `StoreOpener` for `TestServer` whose store is kept in `box` for the test.
    static func opener(into box: HeldStoreBox) -> StoreOpener {
        { configuration in
            let store = HeldStore(try TestServer.sqlite(configuration))
            box.set(store)
            return store
        }
    }

    func submit<T: Sendable>(_ job: @escaping @Sendable (any Store) throws -> T, deferWake: Bool,
                             completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let counted: @Sendable (Result<T, any Error>) -> Void = { [self] result in
            completion(result)
            update { $0.completed += 1 }
        }
        // Only the hub submits with `deferWake`, on its loop thread.
        let stall = deferWake && update { store -> Bool in
            defer { store.stallArmed = false }
            return store.stallArmed
        }
        // Counted once the job is in the executor's queue, so a test that saw the count
        // knows the job goes in the batch after a held one.
        guard stall else {
            inner.submit(job, deferWake: deferWake, completion: counted)
            update { $0.submitted += 1 }
            return
        }
        inner.submit(job, deferWake: false, completion: counted)
        update {
            $0.submitted += 1
            $0.loopStalled = true
        }
        wait { !$0.loopStalled }
    }

    func wakeForQueuedJobs() { inner.wakeForQueuedJobs() }
    func setBatchEndHandler(_ handler: @escaping @Sendable () -> Void) { inner.setBatchEndHandler(handler) }
    func setObserver(_ observer: any StoreObserver) { inner.setObserver(observer) }
    func sync<T: Sendable>(_ job: @escaping @Sendable (any Store) throws -> T) throws -> T { try inner.sync(job) }
    func close() { inner.close() }

    /// Jobs submitted and completions called so far.
    var counts: (submitted: Int, completed: Int) { update { ($0.submitted, $0.completed) } }

    /// Keeps the database thread busy until `releaseDatabase`; returns once it is.
    func holdDatabase() {
        update { $0.databaseHeld = true }
        inner.submit({ [self] _ in
            update { $0.databaseWaiting = true }
            wait { !$0.databaseHeld }
        }, deferWake: false) { _ in }
        wait { $0.databaseWaiting }
    }

    func releaseDatabase() {
        update {
            $0.databaseHeld = false
            $0.databaseWaiting = false
        }
    }

    /// Arms the brake for the next household command.
    func stallLoopAtNextCommand() {
        update { $0.stallArmed = true }
    }

    /// Returns once a loop is stalled by the armed brake.
    func waitUntilLoopStalled() {
        wait { $0.loopStalled }
    }

    func resumeLoop() {
        update { $0.loopStalled = false }
    }

    /// Waits until `submitted` and `completed` reach these counts (10 s at most).
    func waitFor(submitted: Int = 0, completed: Int = 0) {
        wait { $0.submitted >= submitted && $0.completed >= completed }
    }

    private func update<R>(_ body: (HeldStore) -> R) -> R {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return body(self)
    }

    private func wait(until check: (HeldStore) -> Bool) {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while !check(self) && condition.wait(until: deadline) {}
    }
}

/// Where `HeldStore.opener` leaves the store it made.
final class HeldStoreBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: HeldStore?

    func set(_ store: HeldStore) { lock.withLock { stored = store } }

    var store: HeldStore { lock.withLock { stored! } }
}

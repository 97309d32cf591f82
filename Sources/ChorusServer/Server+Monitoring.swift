import Dispatch
import ChorusLocking

/// `/healthz` and `/metrics` as the first hub answers them, asked from any thread and
/// waited for: for tests that ask without HTTP (the web door asks a hub itself).
extension Server {
    /// The text `/metrics` would answer.
    func metricsText() -> String {
        ask { hub, done in done(hub.metricsText()) }
    }

    /// What `/healthz` would answer.
    func isHealthy() -> Bool {
        ask { hub, done in hub.isHealthy(completion: done) }
    }

    private func ask<T: Sendable>(_ question: @escaping @Sendable (Hub, @escaping (T) -> Void) -> Void) -> T {
        let answer = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let hub = first
        hub.loop.execute {
            question(hub.value) { value in
                answer.withLock { $0 = value }
                done.signal()
            }
        }
        done.wait()
        return answer.withLock { $0! }
    }
}

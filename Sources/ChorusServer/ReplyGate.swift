import ChorusNet
import Synchronization

/// Holds a household command's reply until the other loops have written its events.
final class ReplyGate: Sendable {
    private let countdown: Countdown

    init(waitingFor loops: Int, issuer: LoopBound<Hub>, session: UInt64) {
        // The last loop wakes the issuer's loop to send what may go.
        countdown = Countdown(loops) { issuer.loop.execute { issuer.value.releaseReplies(of: session) } }
    }

    var isOpen: Bool { countdown.isDone }

    func arrive() { countdown.arrive() }
}

/// Runs its action once, when the last of `count` threads has arrived.
final class Countdown: Sendable {
    private let remaining: Atomic<Int>
    private let action: @Sendable () -> Void

    init(_ count: Int, then action: @escaping @Sendable () -> Void) {
        remaining = Atomic(count)
        self.action = action
    }

    var isDone: Bool { remaining.load(ordering: .acquiring) == 0 }

    func arrive() {
        guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        action()
    }
}

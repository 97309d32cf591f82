/// Sends one PING on each session and reports when every PONG is back. The server answers
/// in order and queues events before later replies, so after the barrier nothing that set-up
/// caused (join events, say) is still on its way to be mistaken for measured traffic.
/// A session that closes meanwhile fails the barrier at once. Loop thread only.
enum PingBarrier {
    static func run(_ sessions: [BenchSession], completion: @escaping (BenchFailure?) -> Void) {
        var waiting = sessions.count
        var finished = false
        func finish(_ failure: BenchFailure?) {
            guard !finished else { return }
            finished = true
            for session in sessions { session.onClose = nil }
            completion(failure)
        }
        if waiting == 0 {
            finish(nil)
            return
        }
        for session in sessions {
            guard session.isOpen else {
                finish(BenchFailure("a session closed before the measurement: \(session.closeReason ?? "?")"))
                return
            }
            session.onClose = { reason in finish(BenchFailure("a session closed before the measurement: \(reason)")) }
            session.request("PING barrier") { reply in
                guard reply.ok else {
                    finish(BenchFailure("PING: \(reply.errorSummary)"))
                    return
                }
                waiting -= 1
                if waiting == 0 { finish(nil) }
            }
        }
    }
}

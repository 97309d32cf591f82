import CLinux
import ChorusLocking
import ChorusNet
import ChorusStore
import Dispatch
import Foundation
import Synchronization

/// Presence of a node among several sharing one store (CLUSTER.md, Presence). This node's
/// counts are kept here as `LocalPresence` keeps them, so logins, logouts and replies only
/// take a lock; a thread of its own (`chorus-presence`) renews the node's lease on the
/// `PresenceBoard` every heartbeat with those counts and keeps what it read of the other
/// live nodes. Who is online is this node's users now plus the others' as of the last
/// heartbeat (so a login elsewhere shows here within about two heartbeats).
///
/// While the board cannot be reached, the others count as they were read until a lease
/// has passed since the last heartbeat that worked, then not at all: their leases may have
/// run out meanwhile, and this node cannot tell.
final class ClusterPresence: Presence {
    /// What a heartbeat reports besides the counts; the server's, read on this thread.
    struct Source: Sendable {
        /// Connections open on this node.
        let sessions: @Sendable () -> Int
        /// The last id this node's tail delivered.
        let deliveredUpTo: @Sendable () -> Int64?
        /// Told after each heartbeat whether it reached the database (`/healthz`).
        var heartbeat: @Sendable (Bool) -> Void = { _ in }
    }

    /// The other live nodes, as the last heartbeat that worked read them.
    private struct View {
        var others: [NodeSnapshot] = []
        var users: Set<Int64> = []
        var ownLag: Int64?
        /// When it was read (MonotonicTime); 0 before the first heartbeat.
        var readAt: UInt64 = 0
    }

    private let local = LocalPresence()
    private let board: any PresenceBoard
    private let view = Locked(View())
    private let source = Locked<Source?>(nil)
    private let wake = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(board: any PresenceBoard) {
        self.board = board
    }

    var node: String { board.node }

    func loggedIn(_ user: Int64) { local.loggedIn(user) }
    func loggedOut(_ user: Int64) { local.loggedOut(user) }

    var onlineUsers: Set<Int64> {
        var users = local.onlineUsers
        users.formUnion(freshView.users)
        return users
    }

    var onlineUserCount: Int { onlineUsers.count }

    var nodes: [NodePresence]? {
        let view = freshView
        let sessions = source.withLock { $0 }?.sessions() ?? 0
        let own = NodePresence(name: board.node, isThisNode: true, sessions: sessions, users: local.counts, lag: view.ownLag,
                               heartbeatAge: 0)
        return ([own] + view.others.map {
            NodePresence(name: $0.node, isThisNode: false, sessions: $0.sessions, users: $0.users, lag: $0.lag,
                         heartbeatAge: $0.heartbeatAge)
        }).sorted { $0.name < $1.name }
    }

    private var freshView: View {
        let view = self.view.withLock { $0 }
        let age = Double(MonotonicTime.nanoseconds() &- view.readAt) / 1e9
        return view.readAt != 0 && age <= board.timing.lease ? view : View()
    }

    // MARK: The heartbeat

    /// Starts the heartbeat; the first one at once.
    func start(_ source: Source) {
        self.source.withLock { $0 = source }
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-presence")
            run()
        }
        thread.name = "chorus-presence"
        thread.start()
    }

    /// Stops the heartbeat and leaves the board: this node's users stop counting at once.
    /// Waits a few seconds at most (a heartbeat may be waiting on an unreachable database;
    /// the thread then leaves by itself once it returns). Safe to call again.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        guard started.load(ordering: .acquiring) else {
            board.leave()
            return
        }
        wake.signal()
        _ = finished.wait(timeout: .now() + 3)
    }

    private func run() {
        var failing = false
        while !stopping.load(ordering: .acquiring) {
            let began = MonotonicTime.nanoseconds()
            beat(failing: &failing)
            let spent = Double(MonotonicTime.nanoseconds() &- began) / 1e9
            _ = wake.wait(timeout: .now() + max(0.01, board.timing.heartbeat - spent))
        }
        board.leave()
        source.withLock { $0 = nil }
        finished.signal()
    }

    private func beat(failing: inout Bool) {
        guard let source = source.withLock({ $0 }) else { return }
        let report = NodeReport(sessions: source.sessions(), users: local.counts, deliveredUpTo: source.deliveredUpTo())
        let round: PresenceRound
        do {
            round = try board.heartbeat(report)
        } catch {
            source.heartbeat(false)
            if !failing { Log.error("heartbeat failed", ["retry_every": board.timing.heartbeat, "error": error]) }
            failing = true
            return
        }
        source.heartbeat(true)
        if failing { Log.info("heartbeat works again") }
        failing = false
        let others = round.live.filter { $0.node != board.node }
        var users: Set<Int64> = []
        for other in others { users.formUnion(other.users.keys) }
        let ownLag = round.live.first { $0.node == board.node }?.lag
        view.withLock { $0 = View(others: others, users: users, ownLag: ownLag, readAt: MonotonicTime.nanoseconds()) }
        for gone in round.retired {
            // Its lease ran out or its process is gone.
            Log.warn("node retired", ["retired": gone.node, "connections_ended": gone.backendsEnded])
        }
    }
}

import ChorusLocking
import ChorusStore
import CLinux
import Foundation
import Synchronization

/// On a cluster: answers the challenges another node's order keeps in the store, so the
/// CA's validator may reach any node. Reads the (normally empty) table every `interval`
/// on a thread of its own, and adds and removes answers as rows come and go.
final class ACMEChallengeMirror: Sendable {
    static let interval = 1.0
    /// How long the ordering node waits after storing an answer before the CA is told to
    /// validate: two reads of every node, and a margin.
    static let propagation = 2 * interval + 0.5

    private let database: any StoreExecutor
    private let local: ACMELocalAnswers
    private let stopped = Atomic<Bool>(false)
    /// What this mirror added, so it removes only its own.
    private let mirrored = Locked<Set<ACMEChallengeRecord>>([])

    init(database: any StoreExecutor, local: ACMELocalAnswers) {
        self.database = database
        self.local = local
    }

    func start() {
        let thread = Thread { [self] in
            clinux_set_thread_name("chorus-acme-mirror")
            while !stopped.load(ordering: .acquiring) {
                mirror()
                Thread.sleep(forTimeInterval: Self.interval)
            }
        }
        thread.name = "chorus-acme-mirror"
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    private func mirror() {
        let now = Int64(Date().timeIntervalSince1970)
        guard let rows = try? database.sync({ try $0.acmeChallenges(now: now) }) else { return }
        let wanted = Set(rows)
        let had = mirrored.withLock { $0 }
        for gone in had.subtracting(wanted) { local.remove(gone) }
        for new in wanted.subtracting(had) {
            do {
                try local.add(new)
            } catch {
                Log.error("cannot answer an ACME challenge", ["name": new.name, "type": new.type, "error": error])
            }
        }
        mirrored.withLock { $0 = wanted }
    }
}

import ChorusPostgres
import ChorusStore
import ChorusLocking
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// Event ids from the counter row: gapless and in commit order with several nodes writing
/// at once, so a reader polling `WHERE id > last` never steps over an id that commits later.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct EventCounterTests {
    struct Failed: Error {}

    /// A job's event ids, provisional inside the job when staged, final in its completion.
    struct EventIDs: HoldsProvisionalEventIDs {
        var ids: [Int64]
        func resolvingEventIDs(_ final: FinalEventIDs) -> EventIDs { EventIDs(ids: ids.map(final.final)) }
    }

    /// Four queues (four nodes) append two events per job, one job in seven throwing after
    /// its events; a reader on its own connection polls the log all along. Every poll
    /// continues exactly where the last ended, every acknowledged id is there, the ids are
    /// 1...N with nothing of the failed jobs, and each queue's completions come in id order.
    /// Staged (as the server's jobs do: ids taken at the batch's end) or appended (the
    /// counter taken at the first event).
    @Test(arguments: [true, false]) func idsAreGaplessAndInCommitOrderAcrossNodes(staged: Bool) throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let queues = try (0..<4).map { try PostgresQueue(conninfo: conninfo, node: "node\($0)") }
        defer { for queue in queues { queue.close() } }
        let acknowledged = Locked<[[Int64]]>(Array(repeating: [], count: queues.count))
        let unexpected = Locked<[String]>([])
        let done = DispatchGroup()
        let writing = Locked(true)

        let seen = Locked<[Int64]>([])
        let holes = Locked<[String]>([])
        let reader = Thread {
            do {
                let db = try PostgresConnection(conninfo)
                var last: Int64 = 0
                while true {
                    let finished = writing.withLock { !$0 }
                    let ids = try db.query("SELECT id FROM events WHERE id > $1 ORDER BY id", [.int(last)]).rows.map { try $0.int64(0) ?? -1 }
                    if let first = ids.first, first != last + 1 || ids.last != last + Int64(ids.count) {
                        holes.withLock { $0.append("after \(last): \(ids.prefix(5))…") }
                    }
                    seen.withLock { $0 += ids }
                    last = ids.last ?? last
                    if finished { break }
                }
            } catch {
                holes.withLock { $0.append("reader: \(error)") }
            }
        }
        reader.start()

        DispatchQueue.concurrentPerform(iterations: queues.count) { node in
            for n in 0..<150 {
                done.enter()
                queues[node].submit({ db in
                    let append = staged ? db.stageEvent : db.appendEvent
                    let a = try append(Int64(node), nil, "message", nil, "t", "{}", "\(n)a", [])
                    let b = try append(Int64(node), nil, "message", nil, "t", "{}", "\(n)b", [])
                    if staged != (a < 0 && b < 0) { unexpected.withLock { $0.append("ids \(a), \(b) in the job") } }
                    if n % 7 == 3 { throw Failed() }
                    return EventIDs(ids: [a, b])
                }, deferWake: n % 5 != 0, completion: { result in
                    switch result {
                    case .success(let job): acknowledged.withLock { $0[node] += job.ids }
                    case .failure(let error) where !(error is Failed): unexpected.withLock { $0.append("\(error)") }
                    case .failure: break
                    }
                    done.leave()
                })
                if n % 5 == 4 { queues[node].wakeForQueuedJobs() }
            }
            queues[node].wakeForQueuedJobs()
        }
        #expect(done.wait(timeout: .now() + 120) == .success)
        writing.withLock { $0 = false }
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }

        #expect(unexpected.withLock { $0 } == [])
        #expect(holes.withLock { $0 } == [])
        let perNode = acknowledged.withLock { $0 }
        let all = perNode.flatMap { $0 }.sorted()
        let succeeded = (0..<150).filter { $0 % 7 != 3 }.count * queues.count
        #expect(all.count == succeeded * 2)
        #expect(all == Array(1...Int64(all.count)), "gapless: the failed jobs' ids were given back")
        #expect(seen.withLock { $0 } == all, "the reader saw every id, once, in order")
        let texts = try queues[0].syncPostgres { db in
            try db.connection.query("SELECT id, text FROM events ORDER BY id").rows.map { (try $0.int64(0) ?? 0, $0.string(1) ?? "") }
        }
        #expect(texts.filter { $0.1.hasSuffix("a") }.allSatisfy { a in texts.contains { $0.0 == a.0 + 1 && $0.1 == a.1.dropLast() + "b" } },
                "each job's two events are stored in order under consecutive ids")
        for ids in perNode { #expect(ids == ids.sorted(), "a node's completions follow its commits") }
        let last = try queues[0].sync { try $0.lastEventID() }
        #expect(last == Int64(all.count))
        #expect(queues.map(\.rerunCount).reduce(0, +) > 0, "the failing jobs made batches run again with savepoints")
    }
}

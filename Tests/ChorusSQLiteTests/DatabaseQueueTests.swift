import ChorusLocking
import ChorusCore
import Dispatch
import Foundation
import Testing
@testable import ChorusSQLite
import ChorusStore

/// SQLite only: how `DatabaseQueue` batches, reruns, checkpoints and fails. What every
/// executor must do is in ChorusStoreTests' `StoreExecutorTests`.
@Suite struct DatabaseQueueTests {
    let dir: TempDirectory
    let path: String
    let queue: DatabaseQueue

    init() throws {
        dir = try TempDirectory()
        path = dir.path()
        queue = try DatabaseQueue(path: path)
        try queue.syncSQLite { db in try db.execute("CREATE TABLE t (who INTEGER, seq INTEGER, x TEXT) STRICT") }
    }

    /// Holds the queue's thread until released, so the next jobs pile up into one batch.
    private func block() throws -> DispatchSemaphore {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.submit({ _ in
            started.signal()
            // Bounded, so the queue still closes if the test gave up before releasing it.
            _ = release.wait(timeout: .now() + 120)
        }, completion: { _ in })
        try #require(started.wait(timeout: .now() + 60) == .success, "the holding job did not start")
        return release
    }

    private static func insert(_ x: String, who: Int = 0, seq: Int = 0) -> @Sendable (Database) throws -> Void {
        { db in try db.prepare("INSERT INTO t (who, seq, x) VALUES (?1, ?2, ?3)").run(.init(who), .init(seq), .text(x)) }
    }

    private func committed() throws -> [String] {
        try queue.syncSQLite { db in try db.strings("SELECT x FROM t ORDER BY rowid") }
    }

    /// A job that throws in a batch undoes only its own changes; its neighbours commit together.
    @Test func throwingJobKeepsNeighbours() throws {
        let release = try block()
        let before = queue.batchCount
        let results = Collected<(Int, Bool, ChorusError?)>()
        let done = DispatchGroup()
        for n in 1...3 {
            done.enter()
            queue.submitSQLite({ db in
                try Self.insert("job\(n)")(db)
                if n == 2 { throw ChorusError(422, "job 2 fails") }
            }, completion: { result in
                switch result {
                case .success: results.append((n, true, nil))
                case .failure(let error): results.append((n, false, error as? ChorusError))
                }
                done.leave()
            })
        }
        #expect(queue.pendingJobs == 4)
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.all.map(\.0) == [1, 2, 3])
        #expect(results.all.map(\.1) == [true, false, true])
        #expect(results.all[1].2 == ChorusError(422, "job 2 fails"))
        #expect(try committed() == ["job1", "job3"])
        #expect(queue.batchCount - before == 2)  // the blocker's batch, then all three at once
    }

    /// Jobs queued with `deferWake` wait for `wakeForQueuedJobs` on an idle queue, then
    /// commit together in one batch: what an event loop read in one turn shares a commit.
    @Test func deferredJobsWaitForTheWakeAndShareABatch() throws {
        try queue.syncSQLite { _ in }
        Thread.sleep(forTimeInterval: 0.05)  // the worker goes back to sleep after that batch
        let before = queue.batchCount
        let done = DispatchGroup()
        for n in 1...5 {
            done.enter()
            queue.submitSQLite({ db in try Self.insert("held\(n)")(db) }, deferWake: true, completion: { _ in done.leave() })
        }
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut, "an idle queue started without the wake")
        #expect(queue.pendingJobs == 5)
        queue.wakeForQueuedJobs()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(queue.batchCount - before == 1)
        #expect(try committed() == (1...5).map { "held\($0)" })
    }

    /// Jobs run without savepoints until one fails after writing: a job that fails before
    /// writing costs its neighbours nothing, one that fails after writing makes the batch
    /// run again (guarded), and either way each completion is called once with the truth.
    @Test func failuresBeforeWritingDoNotRerunTheBatch() throws {
        let runs = Collected<Int>()
        let results = Collected<(Int, Bool)>()
        func submitBatch(failing: Int, afterWriting: Bool) throws {
            let release = try block()
            let done = DispatchGroup()
            for n in 1...3 {
                done.enter()
                queue.submitSQLite({ db in
                    runs.append(n)
                    if n == failing && !afterWriting { throw ChorusError(404, "nothing written") }
                    try Self.insert("\(failing)-\(n)")(db)
                    if n == failing { throw ChorusError(422, "written, then failed") }
                }, completion: { result in
                    results.append((n, (try? result.get()) != nil))
                    done.leave()
                })
            }
            release.signal()
            #expect(done.wait(timeout: .now() + 10) == .success)
        }
        try submitBatch(failing: 2, afterWriting: false)
        #expect(runs.all == [1, 2, 3])
        try submitBatch(failing: 3, afterWriting: true)
        #expect(runs.all == [1, 2, 3, 1, 2, 3, 1, 2, 3])
        #expect(results.all.map(\.1) == [true, false, true, true, true, false])
        #expect(try committed() == ["2-1", "2-3", "3-1", "3-2"])
    }

    /// The batch-end handler runs once per batch, after every completion of that batch:
    /// what the server relies on to wake its loops once per commit, batch after batch.
    @Test func batchEndHandlerRunsAfterEachBatch() throws {
        let log = Collected<String>()
        queue.setBatchEndHandler { log.append("end") }
        let release = try block()
        let done = DispatchGroup()
        for n in 1...3 {
            done.enter()
            queue.submitSQLite(Self.insert("\(n)")) { _ in
                log.append("job\(n)")
                done.leave()
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        for n in 0..<2000 { _ = try queue.syncSQLite { _ in n } }
        // The handler runs just after the last completion: give it a moment.
        for _ in 0..<500 where log.all.suffix(2000).filter({ $0 == "end" }).count < 2000 { Thread.sleep(forTimeInterval: 0.01) }
        let entries = log.all
        let first = try #require(entries.firstIndex(of: "job1"))
        #expect(Array(entries[first...].prefix(4)) == ["job1", "job2", "job3", "end"])
        #expect(entries[(first + 4)...].count == 2000, "one end per sync batch")
        #expect(entries[(first + 4)...].allSatisfy { $0 == "end" })
    }

    /// A long queue is split into batches of at most maxBatchSize jobs.
    @Test func batchSizeCapped() throws {
        let release = try block()
        let before = queue.batchCount
        let done = DispatchGroup()
        let jobs = DatabaseQueue.maxBatchSize * 2 + 10
        for n in 0..<jobs {
            done.enter()
            queue.submitSQLite(Self.insert("\(n)")) { _ in done.leave() }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(queue.batchCount - before == 3)
        #expect(try committed().count == jobs)
    }

    /// If COMMIT fails, every job of the batch gets its error and nothing is kept.
    @Test func commitFailureFailsWholeBatch() throws {
        try queue.syncSQLite { db in
            try db.execute("""
                CREATE TABLE parent (id INTEGER PRIMARY KEY) STRICT;
                CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED) STRICT;
                """)
        }
        let release = try block()
        let errors = Collected<StoreError?>()
        let done = DispatchGroup()
        let jobs: [@Sendable (Database) throws -> Void] = [
            Self.insert("fine"),
            { db in try db.prepare("INSERT INTO child (p) VALUES (42)").run() },  // only checked at COMMIT
        ]
        for job in jobs {
            done.enter()
            queue.submitSQLite(job) { result in
                if case .failure(let error) = result { errors.append(error as? StoreError) } else { errors.append(nil) }
                done.leave()
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(errors.all.count == 2)
        #expect(errors.all.allSatisfy { $0?.kind == .constraint })
        #expect(try committed().isEmpty)
        try queue.syncSQLite(Self.insert("after"))  // the queue carries on
        #expect(try committed() == ["after"])
    }

    /// A job that loses the transaction fails the jobs before it; later ones still commit.
    @Test func lostTransactionRecovers() throws {
        let release = try block()
        let outcomes = Collected<Bool>()
        let done = DispatchGroup()
        let jobs: [@Sendable (Database) throws -> Void] = [
            Self.insert("before"),
            { db in try db.execute("ROLLBACK") },
            Self.insert("after"),
        ]
        for job in jobs {
            done.enter()
            queue.submitSQLite(job) { result in
                outcomes.append((try? result.get()) != nil)
                done.leave()
            }
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcomes.all == [false, false, true])
        #expect(try committed() == ["after"])
    }

    /// Past a thousand pages of log, the checkpoint runs between batches, never inside a
    /// COMMIT: jobs see the log grow past the mark (SQLite's own checkpoint would have
    /// copied it back inside the COMMIT that crossed it, and the queue's WAL hook would not
    /// be counting). The log is still copied back and started over, so it stays short,
    /// and at close it is copied back whole and removed.
    @Test func checkpointsRunOutsideTheCommit() throws {
        let path = self.path
        let blob = String(repeating: "x", count: 3000)
        let longestLogSeen = Locked<Int32>(0)
        var largestLog = 0
        // 600 commits of three rows, a page each (a 3,000-byte row fills a page): the log
        // passes the 1,000-page mark at least twice.
        for round in 0..<600 {
            try queue.syncSQLite { db in
                longestLogSeen.withLock { $0 = db.peakLogPages }
                for row in 0..<3 { try Self.insert(blob, who: row, seq: round)(db) }
            }
            largestLog = max(largestLog, (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0)
        }
        #expect(longestLogSeen.withLock { $0 } >= Database.checkpointPages)
        #expect(queue.checkpointCount >= 2)
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(fileSize > 1000 * 4096)
        // Started over each time, so never near the 1,800 pages of rows written. (A
        // checkpoint may wait a batch or two for a queued job: a few pages past the mark
        // are fine. A page is 4,096 bytes plus a 24-byte header in the log.)
        #expect(largestLog < Int(Database.checkpointPages) * 3 / 2 * 4120)

        queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try Database(path: path)
        #expect(try reopened.integer("SELECT count(*) FROM t") == 1800)
    }

    /// A queue that never runs dry has the helper copy the bulk of the log on its own
    /// thread, then copies the rest itself: the log still starts over, and nothing is lost.
    @Test func busyQueueHasTheHelperCopyTheLog() throws {
        let blob = String(repeating: "y", count: 3000)
        let release = try block()
        let done = DispatchSemaphore(value: 0)
        // 5,000 one-page jobs queued at once: batches of 256, each but the last leaving
        // more waiting, so the queue never checkpoints because it is idle.
        for round in 0..<5000 {
            queue.submitSQLite({ db in try Self.insert(blob, seq: round)(db) }, completion: { _ in
                if round == 4999 { done.signal() }
            })
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 120) == .success)
        // The log file keeps the largest size the log reached: had it never started over
        // before the last batch, it would hold all 5,000 pages and more.
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(log > 0 && log < 5000 * 4120)
        let deadline = Date().addingTimeInterval(10)
        while queue.helperCopies < 1 && Date() < deadline { usleep(5000) }
        #expect(queue.helperCopies >= 1)
        queue.close()
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reopened = try Database(path: path)
        #expect(try reopened.integer("SELECT count(*) FROM t") == 5000)
    }

    /// A folder that cannot exist fails at start, naming the path.
    @Test func badPathThrows() throws {
        let file = dir.path("plain-file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let path = file + "/sub/chorus.sqlite"
        let error = #expect(throws: StoreError.self) { try DatabaseQueue(path: path) }
        #expect(error?.message.contains(path) == true)
    }
}

import ChorusPostgres
import ChorusStore
import ChorusLocking
import Dispatch
import Foundation
import Testing
import ChorusTestSupport

/// What only PostgreSQL's executor meets: deadlocks between nodes, a server that goes
/// away and comes back, a COMMIT whose answer is lost, a job that swallows a failed statement.
@Suite(.enabled(if: ThrowawayPostgres.canRun, ThrowawayPostgres.skipReason),
       .timeLimit(.minutes(10)))
struct PostgresQueueFaultTests {
    /// Two nodes lock two accounts in opposite order; PostgreSQL ends one transaction with
    /// a deadlock (40P01), that batch runs again, and both jobs succeed with their changes
    /// kept. (The rerun may meet the other again and be ended once more before it wins.)
    @Test func aDeadlockedBatchRunsAgain() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let a = try PostgresQueue(conninfo: conninfo, node: "a")
        let b = try PostgresQueue(conninfo: conninfo, node: "b")
        defer { a.close(); b.close() }
        _ = try a.sync { db in
            try ["ann", "bob"].map { try db.createAccount(name: $0, passwordHash: "h", created: "t").id }
        }
        let aHolds = DispatchSemaphore(value: 0), bHolds = DispatchSemaphore(value: 0)
        let runs = Locked([0, 0])
        let results = Locked<[String]>([])
        let done = DispatchGroup()
        for (index, queue, first, second) in [(0, a, "ann", "bob"), (1, b, "bob", "ann")] {
            done.enter()
            queue.submit({ db -> Bool in
                let attempt = runs.withLock { runs in runs[index] += 1; return runs[index] }
                _ = try db.setAdmin(name: first, true)
                if attempt == 1 {
                    (index == 0 ? aHolds : bHolds).signal()
                    _ = (index == 0 ? bHolds : aHolds).wait(timeout: .now() + 3)
                }
                return try db.setDisabled(name: second, true)
            }, completion: { result in
                results.withLock { $0.append("\(index): \(result)") }
                done.leave()
            })
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(results.withLock { $0 }.sorted() == ["0: success(true)", "1: success(true)"])
        let reruns = a.rerunCount + b.rerunCount
        #expect(reruns >= 1, "one of the two was the deadlock's victim")
        #expect(runs.withLock { $0 }.reduce(0, +) == 2 + reruns, "each rerun ran its job again")
        let flags = try a.sync { db in try ["ann", "bob"].map { (try db.account(named: $0)?.admin, try db.account(named: $0)?.disabled) } }
        #expect(flags.map(\.0) == [true, true] && flags.map(\.1) == [true, true])
    }

    /// While the server is down every job fails at once as unavailable (the server's 503)
    /// and the queue stays usable; once it is back, the queue reconnects by itself, and
    /// what was committed before is there.
    @Test func unavailableWhileTheServerIsDownThenRecovers() throws {
        let server = try ThrowawayPostgres()
        let conninfo = server.conninfo()
        let queue = try PostgresQueue(conninfo: conninfo, node: "n")
        defer { queue.close() }
        _ = try queue.sync { try $0.createAccount(name: "ann", passwordHash: "h", created: "t") }
        server.stop(mode: "fast")
        for _ in 0..<3 {
            let error = try #require(throws: StoreError.self) { try queue.sync { try $0.createAccount(name: "bob", passwordHash: "h", created: "t") } }
            #expect(error.kind == .unavailable, "\(error)")
        }
        let starting = try #require(throws: StoreError.self) { try PostgresQueue(conninfo: conninfo, node: "m") }
        #expect(starting.kind == .unavailable)
        try server.start()
        var recovered: Int?
        for _ in 0..<50 where recovered == nil {
            recovered = try? queue.sync { db in
                _ = try db.createAccount(name: "bob", passwordHash: "h", created: "t")
                return try db.accountCount()
            }
            if recovered == nil { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(recovered == 2)
    }

    /// The session dies during COMMIT (a deferred trigger ends its own backend): the answer
    /// never comes, the queue asks the server about the transaction, learns it aborted, and
    /// the job fails as unavailable with nothing kept; the next job runs on a new connection.
    @Test func aCommitLostMidwayIsSettledAndNotReportedAsSuccess() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let queue = try PostgresQueue(conninfo: conninfo, node: "n")
        defer { queue.close() }
        let setup = try PostgresConnection(conninfo)
        try setup.executeScript("""
            CREATE TABLE doomed (n bigint);
            CREATE FUNCTION end_my_session() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON doomed DEFERRABLE INITIALLY DEFERRED
              FOR EACH ROW EXECUTE FUNCTION end_my_session();
            """)
        let before = try queue.syncPostgres { db in db.connection.backendPID }
        let error = try #require(throws: StoreError.self) {
            try queue.syncPostgres { db in
                _ = try db.createAccount(name: "ann", passwordHash: "h", created: "t")
                try db.connection.execute("INSERT INTO doomed VALUES (1)")
            }
        }
        #expect(error.kind == .unavailable)
        #expect(error.message.contains("did not commit"), "\(error)")
        #expect(try queue.sync { try $0.account(named: "ann") } == nil)
        #expect(try queue.syncPostgres { db in db.connection.backendPID } != before)
    }

    /// The COMMIT reaches the server and commits, but its answer never reaches the node
    /// (a proxy cuts the connection in between): the queue reconnects, asks about the
    /// transaction, learns it committed, and completes the job with success, once.
    @Test func aCommitWhoseAnswerIsLostIsSettledAsCommitted() throws {
        let cluster = try ThrowawayPostgres.sharedCluster()
        let conninfo = try cluster.makeDatabase()
        let database = try #require(conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") })
        let proxy = try CommitCuttingProxy(upstreamPort: cluster.port)
        defer { proxy.stop() }
        let queue = try PostgresQueue(conninfo: "host=127.0.0.1 port=\(proxy.port) user=postgres \(database)", node: "n")
        defer { queue.close() }
        _ = try queue.sync { try $0.createAccount(name: "ann", passwordHash: "h", created: "t") }
        proxy.armed.withLock { $0 = true }
        let runs = Locked(0)
        let id = try queue.sync { db -> Int64 in
            runs.withLock { $0 += 1 }
            return try db.createAccount(name: "bob", passwordHash: "h", created: "t").id
        }
        #expect(proxy.cuts.withLock { $0 } == 1, "the answer to COMMIT was cut off")
        #expect(runs.withLock { $0 } == 1, "a commit is never run again")
        #expect(try queue.sync { try $0.account(named: "bob")?.id } == id)
        #expect(try queue.sync { try $0.accountCount() } == 2)
    }

    /// A COMMIT whose answer was lost while the database then stays away for longer than
    /// one settlement's patience: the job waits and gets its OK once PostgreSQL is back
    /// and says the transaction committed (a 503 would make a client retry a stored write),
    /// while a command meanwhile gets 503 at once rather than committing ahead of it.
    @Test func aCommitWhoseAnswerWasLostWaitsForTheDatabaseToComeBack() throws {
        let cluster = try ThrowawayPostgres.sharedCluster()
        let conninfo = try cluster.makeDatabase()
        let database = try #require(conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") })
        let proxy = try CommitCuttingProxy(upstreamPort: cluster.port)
        defer { proxy.stop() }
        let queue = try PostgresQueue(conninfo: "host=127.0.0.1 port=\(proxy.port) user=postgres \(database) connect_timeout=2",
                                      node: "n")
        defer { queue.close() }
        _ = try queue.sync { try $0.createAccount(name: "ann", passwordHash: "h", created: "t") }
        proxy.refusing.withLock { $0 = true }
        proxy.armed.withLock { $0 = true }
        let answer = Locked<Result<Int64, any Error>?>(nil)
        let answered = DispatchSemaphore(value: 0)
        queue.submit({ db in try db.createAccount(name: "bob", passwordHash: "h", created: "t").id }) { result in
            answer.withLock { $0 = result }
            answered.signal()
        }
        // Past the first settlement's 5 s, with the database still unreachable.
        #expect(answered.wait(timeout: .now() + 7) == .timedOut, "the job waits while the outcome is unknown")
        #expect(proxy.cuts.withLock { $0 } == 1, "the answer to COMMIT was cut off")
        #expect(throws: StoreError.self) { try queue.sync { try $0.accountCount() } }
        proxy.refusing.withLock { $0 = false }
        #expect(answered.wait(timeout: .now() + 30) == .success)
        let id = try #require(try answer.withLock { $0 }?.get())
        #expect(try queue.sync { try $0.account(named: "bob")?.id } == id)
        #expect(try queue.sync { try $0.accountCount() } == 2)
    }

    /// The settlement's question, against real transactions: one committed, one rolled
    /// back, one still open on another session.
    @Test func transactionStatusNamesWhatBecameOfAnID() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let db = try PostgresConnection(conninfo)
        let other = try PostgresConnection(conninfo)
        try db.execute("CREATE TABLE t (n bigint)")
        func xid(_ connection: PostgresConnection) throws -> String {
            try #require(try connection.query("SELECT pg_current_xact_id()::text").row(0).string(0))
        }
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (1)")
        let committed = try xid(db)
        try db.execute("COMMIT")
        try db.execute("BEGIN")
        try db.execute("INSERT INTO t VALUES (2)")
        let aborted = try xid(db)
        try db.execute("ROLLBACK")
        try other.execute("BEGIN")
        let open = try xid(other)
        #expect(try PostgresCommitSettlement.status(ofTransaction: committed, on: db) == "committed")
        #expect(try PostgresCommitSettlement.status(ofTransaction: aborted, on: db) == "aborted")
        #expect(try PostgresCommitSettlement.status(ofTransaction: open, on: db) == "in progress")
        try other.execute("COMMIT")
        #expect(try PostgresCommitSettlement.status(ofTransaction: open, on: db) == "committed")
    }

    /// Settling: a committed id settles as committed; one whose session is still running
    /// (a cut network: the old backend has not noticed) is ended, so it settles as aborted
    /// rather than being guessed at; and a broken connection is reconnected to ask.
    @Test func settlementEndsAFormerSessionStillRunning() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let db = try PostgresConnection(conninfo)
        let former = try PostgresConnection(conninfo)
        try db.execute("CREATE TABLE t (n bigint)")
        let committed = try Self.begin(db, "INSERT INTO t VALUES (1)")
        try db.execute("COMMIT")
        let mark = try PostgresCommitSettlement.recoveryMark(on: db)
        func transaction(_ xid: String, backend: Int32 = 0) -> PostgresCommitSettlement.Transaction {
            PostgresCommitSettlement.Transaction(xid: xid, backend: backend, recoveryMark: mark)
        }
        #expect(PostgresCommitSettlement.settle(transaction(committed), on: db) == .committed)
        // An id the server never handed out (as after a crash lost the COMMIT record):
        // PostgreSQL calls it "in the future", and it did not commit.
        let future = String(try #require(Int64(committed)) + 1_000_000)
        #expect(PostgresCommitSettlement.settle(transaction(future), on: db, patience: 1) == .aborted)

        let open = try Self.begin(former, "INSERT INTO t VALUES (2)")
        let admin = try PostgresConnection(conninfo)
        _ = try admin.query("SELECT pg_terminate_backend($1::int)", [.int(Int64(db.backendPID))])
        #expect(PostgresCommitSettlement.settle(transaction(open, backend: former.backendPID), on: db) == .aborted)
        #expect(db.isConnected, "reconnected to ask")
        #expect(throws: PostgresError.self) { try former.execute("COMMIT") }
        #expect(try db.query("SELECT count(*) FROM t").row(0).int64(0) == 1)
    }

    /// Opens a transaction on `connection`, runs `statement` in it, and returns its id.
    static func begin(_ connection: PostgresConnection, _ statement: String) throws -> String {
        try connection.execute("BEGIN")
        try connection.execute(statement)
        return try #require(try connection.query("SELECT pg_current_xact_id()::text").row(0).string(0))
    }

    /// After a crash, PostgreSQL hands out again the ids of transactions whose records never
    /// reached the disk, so a lost transaction's id soon names another that committed. The
    /// settlement believes "committed" only when the transaction's events are there under
    /// its node's name (another node's rows under the same ids do not count); one that
    /// stored no events cannot be told once the server has recovered. A server of the
    /// test's own, crashed with `pg_ctl stop -m immediate`. (The other crash, one backend
    /// SIGKILLed and the server recovering in place, was tried by hand: SIGKILLing a
    /// backend from this process, in a full run, went with other tests' connections to
    /// the shared server failing, which was not explained.)
    @Test func aCrashedServerReusingALostTransactionsIdIsNotBelieved() throws {
        let server = try ThrowawayPostgres()
        let conninfo = try server.makeDatabase()
        let setup = try PostgresConnection(conninfo)
        try setup.execute("CREATE TABLE events (id bigint PRIMARY KEY, node text)")
        try setup.execute("CREATE TABLE other (n bigint)")
        // One transaction commits its event; two are left open, one with events, one without.
        let stored = try PostgresConnection(conninfo), lost = try PostgresConnection(conninfo)
        let eventless = try PostgresConnection(conninfo)
        let before = try PostgresCommitSettlement.recoveryMark(on: setup)
        let storedXID = try Self.begin(stored, "INSERT INTO events VALUES (1, 'a')")
        try stored.execute("COMMIT")
        let lostXID = try Self.begin(lost, "INSERT INTO events VALUES (2, 'a'), (3, 'a')")
        let eventlessXID = try Self.begin(eventless, "INSERT INTO other VALUES (1)")

        server.stop(mode: "immediate")
        try server.start()
        let again = try PostgresConnection(conninfo)
        #expect(try PostgresCommitSettlement.recoveryMark(on: again) != before)
        // Another node takes the lost event ids, and commits go on until the lost
        // transaction ids are handed out again (till then PostgreSQL calls them "in the future").
        try again.execute("INSERT INTO events VALUES (2, 'b'), (3, 'b')")
        var rounds = 0
        while (try? PostgresCommitSettlement.status(ofTransaction: eventlessXID, on: again)) != "committed" && rounds < 100 {
            try again.execute("INSERT INTO other VALUES (\(rounds))")
            rounds += 1
        }
        #expect(try PostgresCommitSettlement.status(ofTransaction: lostXID, on: again) == "committed",
                "the lost transaction's id was handed out again and committed")

        let settler = try PostgresConnection(conninfo)
        func settle(_ xid: String, _ ids: [Int64]) -> PostgresCommitSettlement.Outcome {
            PostgresCommitSettlement.settle(.init(xid: xid, backend: 0, recoveryMark: before, eventIDs: ids, node: "a"),
                                            on: settler, patience: 1)
        }
        #expect(settle(lostXID, [2, 3]) == .aborted)
        #expect(settle(storedXID, [1]) == .committed)
        guard case .unknowable = settle(eventlessXID, []) else {
            Issue.record("a transaction without events is taken as settled after a crash")
            return
        }
    }

    /// Without a crash, a transaction that stored no events is believed on its id alone,
    /// after a clean restart too (PostgreSQL then keeps every id it handed out).
    @Test func aCleanRestartKeepsAnEventlessCommitBelieved() throws {
        let server = try ThrowawayPostgres()
        let conninfo = try server.makeDatabase()
        let db = try PostgresConnection(conninfo)
        try db.execute("CREATE TABLE other (n bigint)")
        let xid = try Self.begin(db, "INSERT INTO other VALUES (1)")
        try db.execute("COMMIT")
        let mark = try PostgresCommitSettlement.recoveryMark(on: db)
        server.stop(mode: "fast")
        try server.start()
        let settler = try PostgresConnection(conninfo)
        #expect(PostgresCommitSettlement.settle(.init(xid: xid, backend: 0, recoveryMark: mark), on: settler) == .committed)
    }

    /// A job that catches a failed statement and carries on is told it failed (PostgreSQL
    /// ignored what it did after the failure), and its neighbours in the batch commit.
    @Test func aSwallowedStatementFailureIsNotASuccess() throws {
        let conninfo = try ThrowawayPostgres.sharedCluster().makeDatabase()
        let queue = try PostgresQueue(conninfo: conninfo, node: "n")
        defer { queue.close() }
        // Holds the queue so the three jobs share the next batch. Started before they are
        // queued, so it is a batch of its own and never rerun with theirs.
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        queue.submit({ _ in
            started.signal()
            // Bounded, so the queue still closes if the test gave up before releasing it.
            _ = release.wait(timeout: .now() + 120)
        }, completion: { _ in })
        try #require(started.wait(timeout: .now() + 60) == .success, "the holding job did not start")
        let results = Locked<[String]>([])
        let done = DispatchGroup()
        for name in ["ann", "bad", "cat"] {
            done.enter()
            queue.submitPostgres({ db in
                _ = try db.createAccount(name: name, passwordHash: "h", created: "t")
                if name == "bad" { _ = try? db.connection.execute("SELECT 1/0") }
            }, completion: { result in
                results.withLock { $0.append("\(name) \((try? result.get()) != nil)") }
                done.leave()
            })
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(results.withLock { $0 } == ["ann true", "bad false", "cat true"])
        #expect(try queue.sync { db in try ["ann", "bad", "cat"].map { try db.account(named: $0) != nil } } == [true, false, true])
    }
}
